"""The `keras-rda` command line: one module per subcommand.

    keras-rda tasks                         # what tasks exist
    keras-rda models                        # what models exist
    keras-rda train multicopy --model rda   # one model, one task
    keras-rda compare multicopy --models rda,rwa,lstm,gru --seeds 0,1,2
    keras-rda enwik8 --data PATH --model rda
    keras-rda report                        # rebuild the docs' tables

Modules: `options` (the parent parser shared by the training subcommands,
one-line errors), `runs` (what `train` and `compare` share), then `train`,
`compare`, `tasks`, `models`, `enwik8` and `report`, each with `NAME`,
`HELP`, `PARENTS` and `configure(parser) -> run(args)`; `command`
assembles them into `build_parser()` and `main()`. This package imports
`keras_rda.lab.zoo` and `keras_rda.lab.enwik8`; neither imports it.
"""

from keras_rda.lab.cli.command import build_parser
from keras_rda.lab.cli.command import main

__all__ = ["build_parser", "main"]
