"""`python -m keras_rda.lab.enwik8 ...` is `keras-rda enwik8 ...` (an entry shim).

Nothing imports this module; it only forwards to the command line.
"""

import sys

from keras_rda.lab.cli import main

if __name__ == "__main__":
    sys.exit(main(["enwik8", *sys.argv[1:]]))
