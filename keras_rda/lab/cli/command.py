"""The `keras-rda` parser and entry point, built from the subcommand modules
(named `command`, so that `keras_rda.lab.cli.main` stays the function)."""

import logging
import sys

from keras_rda.lab.cli import compare
from keras_rda.lab.cli import enwik8
from keras_rda.lab.cli import merge
from keras_rda.lab.cli import models
from keras_rda.lab.cli import report
from keras_rda.lab.cli import tasks
from keras_rda.lab.cli import train
from keras_rda.lab.cli.options import EXIT_INTERRUPTED
from keras_rda.lab.cli.options import EXIT_USAGE
from keras_rda.lab.cli.options import CommandError
from keras_rda.lab.cli.options import Parser

# One module per subcommand, in the order `keras-rda --help` lists them.
SUBCOMMANDS = (train, compare, tasks, models, enwik8, report, merge)


class NewModelTraces(logging.Filter):
    """Drops TensorFlow's warning that Keras's `fit`/`evaluate`/`predict`
    function was retraced: `compare` trains several models in one process,
    whose functions TensorFlow counts together as retracing (a retraced
    function of the package's own still warns)."""

    def filter(self, record):
        message = record.getMessage()
        return not (
            "triggered tf.function retracing" in message
            and "TensorFlowTrainer._make_function" in message
        )


def quiet_new_model_traces():
    """Adds `NewModelTraces` to TensorFlow's logger (once)."""
    logger = logging.getLogger("tensorflow")
    if not any(isinstance(f, NewModelTraces) for f in logger.filters):
        logger.addFilter(NewModelTraces())


def build_parser():
    """The argument parser with every subcommand."""
    parser = Parser(
        prog="keras-rda",
        description="Train and compare attention-based recurrent units on the "
        "papers' tasks.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        sub = subparsers.add_parser(
            module.NAME,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            parents=[make() for make in module.PARENTS],
        )
        sub.set_defaults(run=module.configure(sub))
    return parser


def main(argv=None):
    """Entry point of the `keras-rda` console script; returns the exit code.

    User errors print one line on stderr and return 2; an interrupted run
    (Ctrl-C) returns 130 and resumes when the same command is rerun.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    quiet_new_model_traces()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code
    if getattr(args, "run", None) is None:
        parser.print_help()
        return EXIT_USAGE
    args.argv = argv
    try:
        return args.run(args) or 0
    except CommandError as error:
        print(f"keras-rda: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(
            "keras-rda: interrupted; rerun the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
