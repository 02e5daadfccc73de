"""keras_rda.training."""
