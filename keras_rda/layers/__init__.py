"""keras_rda.layers."""
