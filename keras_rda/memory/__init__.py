"""keras_rda.memory."""
