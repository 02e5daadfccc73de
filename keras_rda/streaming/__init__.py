"""Streaming inference: run a trained sequence model one time step at a time.

`step_model(model)` makes a `keras.Model` mapping `[x_t, *states]` to
`[y_t, *new_states]` with the trained model's own weights, and
`initial_states(model, batch_size)` the states to start from. The export
helpers (`keras_rda.streaming.export`) write it as a SavedModel, ONNX or
LiteRT (builtin ops only) file; they import TensorFlow only when called.
"""

from keras_rda.streaming.step import PER_STEP_LAYERS
from keras_rda.streaming.step import initial_states
from keras_rda.streaming.step import sequence_states
from keras_rda.streaming.step import step_model
from keras_rda.streaming.step import stream_states

__all__ = [
    "PER_STEP_LAYERS",
    "initial_states",
    "sequence_states",
    "step_model",
    "stream_states",
]
