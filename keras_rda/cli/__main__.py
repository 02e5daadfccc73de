"""`python -m keras_rda.cli ...` is `keras-rda ...`."""

import sys

from keras_rda.cli import main

if __name__ == "__main__":
    sys.exit(main())
