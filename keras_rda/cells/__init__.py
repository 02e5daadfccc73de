"""keras_rda.cells."""
