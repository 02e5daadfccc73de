"""`keras-rda report`: rebuild the docs' result tables from `results/`.

Every table between `<!-- keras-rda report: NAME -->` and
`<!-- /keras-rda report -->` in README.md and docs/*.md is regenerated from
the record `results/NAME.json` (a `keras-rda train`/`compare` record, or a
table record written by a benchmark; see docs/contributing.md). With
`--check` nothing is written: the command lists the tables that differ
from their records and exits with status 1 when there are any.
"""

import pathlib
import sys

from keras_rda.lab.cli.options import CommandError
from keras_rda.lab.files import write_atomically

NAME = "report"
HELP = "rebuild the result tables in README.md and docs/ from results/"
DESCRIPTION = __doc__
PARENTS = ()


def configure(parser):
    """Adds the options of `report`; returns its `run(args)`."""
    parser.add_argument(
        "--root",
        default=".",
        help="the repository checkout holding README.md, docs/ and results/ "
        "(default: the current directory)",
    )
    parser.add_argument(
        "--results-dir",
        default=None,
        metavar="DIR",
        help="where the records are (default ROOT/results)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 when a table differs from its record",
    )
    return run


def run(args):
    from keras_rda.lab.reporting.report import documents
    from keras_rda.lab.reporting.report import rebuild_tables

    root = pathlib.Path(args.root)
    if not (root / "README.md").is_file():
        raise CommandError(f"--root {args.root!r} has no README.md")
    results_dir = pathlib.Path(args.results_dir or root / "results")
    stale = []
    for path in documents(root):
        text = path.read_text()
        try:
            new, names = rebuild_tables(text, results_dir)
        except (OSError, ValueError, KeyError) as error:
            raise CommandError(f"{path}: {error}") from None
        if new != text:
            stale.append(path)
            if not args.check:
                write_atomically(path, new)
        if names:
            state = "differs" if new != text else "up to date"
            if new != text and not args.check:
                state = "rebuilt"
            print(f"{path}: {len(names)} table(s) {state}")
    if args.check and stale:
        print(
            "keras-rda: tables differ from their records in "
            + ", ".join(str(p) for p in stale)
            + "; run `keras-rda report`",
            file=sys.stderr,
        )
        return 1
    return 0
