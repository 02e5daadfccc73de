"""`python -m keras_rda.cli ...` is `keras-rda ...`."""

import sys

from keras_rda.cli import main

sys.exit(main())
