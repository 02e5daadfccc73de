"""The paper's enwik8 model: state in and out for any recurrent unit."""

import keras
import numpy as np
import pytest

from keras_rda.lab.enwik8.char_model import build_char_model


@pytest.mark.parametrize(
    "name,num_states",
    [("lstm", 2), ("gru", 1), ("rda", 4), ("rda-exp-tanh", 4), ("rwa", 4)],
)
def test_state_is_an_explicit_input_and_output(name, num_states):
    model = build_char_model(name, units=5, vocab_size=256, embedding_dim=64)
    assert len(model.inputs) == 1 + num_states
    assert model.get_layer("embedding").output_dim == 64
    rnn = model.get_layer("rnn")
    states = rnn.get_initial_state(2)
    tokens = keras.ops.convert_to_tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    logits, *new_states = model([tokens, *states])
    assert logits.shape == (2, 3, 256)
    assert len(new_states) == num_states
    # Feeding the first two steps and then the last with the carried state
    # equals feeding all three at once (what truncated BPTT relies on).
    first, *mid = model([tokens[:, :2], *states])
    last, *end = model([tokens[:, 2:], *mid])
    np.testing.assert_allclose(
        np.asarray(last[:, 0]), np.asarray(logits[:, 2]), rtol=1e-5, atol=1e-5
    )
    for a, b in zip(end, new_states):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_unknown_model():
    with pytest.raises(ValueError, match="`model`, expected one of"):
        build_char_model("transformer")
