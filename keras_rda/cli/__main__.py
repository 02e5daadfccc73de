"""`python -m keras_rda.cli ...` is `keras-rda ...`."""

import sys

from keras_rda.cli.main import main

sys.exit(main())
