"""`keras-rda compare TASK --models A,B,...`: several zoo models on one task."""

from keras_rda.lab.cli import runs
from keras_rda.lab.cli.options import CommandError

NAME = "compare"
HELP = "train several models on one task and compare them"


def configure(parser):
    """Adds the options of `compare`; returns its `run(args)`."""
    parser.add_argument(
        "--models",
        default="rda,rwa,lstm,gru",
        help="comma-separated zoo models (default rda,rwa,lstm,gru)",
    )
    return run


def run(args):
    """Trains `--models` over `--seeds`; record, plot and table TASK-compare."""
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    if not names:
        raise CommandError("--models names no model")
    return runs.run_models(args, names, comparison=True)


PARENTS = (runs.parent_parser,)
