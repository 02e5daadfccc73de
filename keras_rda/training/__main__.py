"""`python -m keras_rda.training`: the enwik8 run (same as `keras-rda enwik8`)."""

import sys

from keras_rda.training.cli import main

sys.exit(main())
