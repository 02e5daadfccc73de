"""`keras-rda merge`: join the records of one comparison run in pieces.

A comparison whose seeds or models ran in separate processes or on separate
machines leaves one record per piece; `merge` writes the one record that
`keras-rda report` and the claims read, each run keeping the commit it ran
at. With `--replace`, the first record is an earlier comparison and each
later one a rerun of some of its models (after a fix that changes them):
their runs take the place of those models' runs, and the others stay.
With `--plot`, the joined record's held-out curves are drawn as `compare`
draws its own (a model over several seeds as its median and each seed).
"""

from keras_rda.lab.cli.options import CommandError

NAME = "merge"
HELP = "join the records of one comparison run in several processes"
DESCRIPTION = __doc__
PARENTS = ()


def configure(parser):
    """Adds the options of `merge`; returns its `run(args)`."""
    parser.add_argument(
        "records",
        nargs="+",
        metavar="RECORD",
        help="the records to join (JSON files of `keras-rda compare`)",
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="where the joined record goes (may be one of the RECORDs)",
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="the first RECORD is an earlier comparison: each later one's "
        "models replace their runs there instead of joining them",
    )
    parser.add_argument(
        "--plot",
        metavar="PNG",
        help="also draw the joined record's held-out curves here",
    )
    return run


def _read(path):
    """The record at `path`, or a one-line error naming it and what is wrong."""
    from keras_rda.lab.files import DamagedFile
    from keras_rda.lab.files import read_json

    try:
        return read_json(path, required=("kind", "task", "runs", "commands"))
    except DamagedFile as error:
        raise CommandError(f"RECORD {path!r}: {error.reason}") from None


def run(args):
    from keras_rda.lab.reporting.records import merge_runs
    from keras_rda.lab.reporting.records import replace_runs
    from keras_rda.lab.reporting.report import plot_curves
    from keras_rda.lab.reporting.report import write_json

    if len(args.records) < 2:
        raise CommandError(f"merge needs two RECORDs or more, got {args.records}")
    records = [_read(path) for path in args.records]
    try:
        if args.replace:
            joined = records[0]
            for rerun in records[1:]:
                joined = replace_runs(joined, rerun)
        else:
            joined = merge_runs(records)
    except (KeyError, TypeError, ValueError) as error:
        raise CommandError(f"RECORDs {args.records}: {error}") from None
    write_json(args.out, joined)
    runs = ", ".join(
        f"{run['model']} seed {run['settings']['seed']}" for run in joined["runs"]
    )
    print(f"{args.out}: {len(joined['runs'])} run(s): {runs}")
    if args.plot:
        print(f"Drew {plot_curves(joined, args.plot)}")
    return 0
