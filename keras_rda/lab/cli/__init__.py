"""The `keras-rda` command line: one module per subcommand.

    keras-rda tasks                         # what tasks exist
    keras-rda models                        # what models exist
    keras-rda train multicopy --model rda   # one model, one task
    keras-rda compare multicopy --models rda,rwa,lstm,gru --seeds 0,1,2
    keras-rda enwik8 --data PATH --model rda
    keras-rda report                        # rebuild the docs' tables
    keras-rda merge A.json B.json --out AB.json  # join a comparison's pieces

One module per subcommand, each with `NAME`, `HELP`, `PARENTS` and
`configure(parser) -> run(args)`; `command` assembles them into
`build_parser()` and `main()`, `options` holds what they share. The command
line only parses and prints one-line errors; the lab never imports it.
"""

from keras_rda.lab.cli.command import build_parser
from keras_rda.lab.cli.command import main

__all__ = ["build_parser", "main"]
