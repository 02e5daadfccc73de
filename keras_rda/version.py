"""The keras_rda version."""

__version__ = "0.2.0"
