"""`keras-rda train TASK --model M`: one zoo model on one task."""

from keras_rda.lab.cli import runs

NAME = "train"
HELP = "train one model on one task"


def configure(parser):
    """Adds the options of `train`; returns its `run(args)`."""
    parser.add_argument(
        "--model", default="rda", help="zoo model (default rda; see `keras-rda models`)"
    )
    return run


def run(args):
    """Trains `--model` over `--seeds`; record, plot and table TASK-MODEL."""
    return runs.run_models(args, [args.model], comparison=False)


PARENTS = (runs.parent_parser,)
