"""`python -m keras_rda.lab.cli ...` is `keras-rda ...`."""

import sys

from keras_rda.lab.cli import main

if __name__ == "__main__":
    sys.exit(main())
