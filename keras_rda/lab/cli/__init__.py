"""The `keras-rda` command line: one module per subcommand.

    keras-rda tasks                         # what tasks exist
    keras-rda models                        # what models exist
    keras-rda train multicopy --model rda   # one model, one task
    keras-rda compare multicopy --models rda,rwa,lstm,gru --seeds 0,1,2
    keras-rda enwik8 --data PATH --model rda
    keras-rda report                        # rebuild the docs' tables
    keras-rda merge A.json B.json --out AB.json  # join a comparison's pieces

Modules: `options` (the parent parser shared by the training subcommands,
one-line errors), `runs` (the options `train` and `compare` share, parsed
into one `keras_rda.lab.runs.RunSpec` that `keras_rda.lab.runs.run`
runs), then `train`, `compare`, `tasks`, `models`, `enwik8`, `report`
and `merge`, each with `NAME`, `HELP`, `PARENTS` and `configure(parser) -> run(args)`;
`command` assembles them into `build_parser()` and `main()`. The command
line only parses and prints one-line errors; the lab packages it calls
(`runs`, `enwik8`, `reporting`, ...) never import it.
"""

from keras_rda.lab.cli.command import build_parser
from keras_rda.lab.cli.command import main

__all__ = ["build_parser", "main"]
