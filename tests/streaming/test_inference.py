"""The inference form of the RWA/RDA step equals the training form and the
papers' equations (a NumPy reference in float64)."""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda import streaming
from keras_rda.streaming import inference

UNITS = 5
FEATURES = 3

CELLS = {
    "RDA sigmoid-id": lambda: keras_rda.RDACell(UNITS),
    "RDA exp-tanh, learned s0": lambda: keras_rda.RDACell(
        UNITS,
        variant="exp-tanh",
        learn_initial_state=True,
        initial_state_initializer="random_normal",
    ),
    "RDA softplus, tanh": lambda: keras_rda.RDACell(
        UNITS, attention_activation="softplus", hidden_activation="tanh"
    ),
    "RDA without bias": lambda: keras_rda.RDACell(UNITS, use_bias=False),
    "RWA": lambda: keras_rda.RWACell(UNITS),
    "RWA without s0": lambda: keras_rda.RWACell(UNITS, learn_initial_state=False),
    "ParallelRDA": lambda: keras_rda.ParallelRDACell(UNITS),
}


def built(name):
    cell = CELLS[name]()
    cell.build((None, FEATURES))
    # Non-zero biases, so that every block's bias is exercised.
    if cell.use_bias:
        bias = np.random.RandomState(1).randn(*cell.bias.shape)
        cell.bias.assign(bias.astype("float32"))
    return cell


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _attention(logits, name):
    if name == "exp":
        return np.exp(logits)
    if name == "sigmoid":
        return _sigmoid(logits)
    return np.log1p(np.exp(logits))


def _activation(x, name):
    return np.tanh(x) if name == "tanh" else x


def reference(cell, x):
    """The unit's equations (RDA paper section 5; RWA paper eq. 2-7) in
    float64, without rescaling: outputs `[B, T, units]`."""
    kernel = np.asarray(cell.kernel, "float64")
    bias = np.asarray(cell.bias, "float64") if cell.use_bias else 0.0
    units, steps = cell.units, x.shape[1]
    s0 = (
        np.zeros(units)
        if cell.initial_state is None
        else np.asarray(cell.initial_state, "float64")
    )
    h = np.tile(_activation(s0, cell.hidden_activation), (x.shape[0], 1))
    n = np.zeros_like(h)
    d = np.zeros_like(h)
    outputs = []
    for t in range(steps):
        pre = x[:, t].astype("float64") @ kernel + bias
        if cell.gates_read_hidden:
            recurrent = np.asarray(cell.recurrent_kernel, "float64")
            pre[:, units:] += h @ recurrent
        blocks = np.split(pre, cell.num_blocks, axis=-1)
        z = blocks[0] * np.tanh(blocks[1])
        a = _attention(blocks[2], cell.attention_activation)
        gamma = _sigmoid(blocks[3]) if cell.discount else 1.0
        n = n * gamma + z * a
        d = d * gamma + a
        h = _activation(n / d, cell.hidden_activation)
        outputs.append(_activation(h, cell.output_activation))
    return np.stack(outputs, 1)


def stream(step, cell, x, states):
    outputs = []
    for t in range(x.shape[1]):
        output, states = step(cell, x[:, t], states)
        outputs.append(np.asarray(output))
    return np.stack(outputs, 1), [np.asarray(s) for s in states]


def training_step(cell, x_t, states):
    return cell(x_t, states, training=False)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_the_inference_form_equals_the_papers_equations(name):
    cell = built(name)
    assert inference.has_inference_form(cell)
    x = np.random.RandomState(0).randn(2, 12, FEATURES).astype("float32")
    got, _ = stream(
        inference.inference_step, cell, x, cell.get_initial_state(batch_size=2)
    )
    np.testing.assert_allclose(got, reference(cell, x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_the_inference_form_equals_the_training_form(name):
    """Outputs and states, over a long stream with inputs large enough that
    the running maximum moves and the discounted past underflows, and
    from the all-zero state (the initial state of `reset_state`)."""
    cell = built(name)
    rng = np.random.RandomState(0)
    x = rng.randn(3, 60, FEATURES).astype("float32")
    x[:, 10:14] *= 40.0
    x[1, 30:] *= 15.0
    zeros = [np.zeros((3, UNITS), "float32") for _ in cell.state_size]
    for start in (cell.get_initial_state(batch_size=3), zeros):
        want, want_states = stream(training_step, cell, x, start)
        got, got_states = stream(inference.inference_step, cell, x, start)
        assert np.all(np.isfinite(got))
        # Float32 rounding, fed back through h for 60 steps of large inputs:
        # each form is further from a float64 run of the equations (up to
        # 6e-4 relative here) than from the other.
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-4)
        for a, b in zip(got_states, want_states):
            # Sums with cancellations: to the magnitude of the state.
            scale = np.max(np.abs(b)) + 1.0
            np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5 * scale)


def test_cells_without_an_inference_form_keep_the_training_form():
    relu = keras_rda.RDACell(UNITS, attention_activation="relu")
    mixed = keras_rda.RDACell(UNITS, dtype="mixed_float16")
    for cell in (relu, mixed, keras.layers.LSTMCell(UNITS)):
        assert not inference.has_inference_form(cell)
    model = keras.Sequential(
        [keras.Input((None, FEATURES)), keras.layers.RNN(relu, return_sequences=True)]
    )
    step = streaming.step_model(model)
    assert not any(isinstance(layer, inference.InferenceStep) for layer in step.layers)


@pytest.mark.parametrize("inference_form", [True, False])
def test_step_model_takes_the_inference_form_by_default(inference_form):
    model = keras.Sequential(
        [keras.Input((None, FEATURES)), keras_rda.RDA(UNITS, return_sequences=True)]
    )
    step = streaming.step_model(model, inference_form=inference_form)
    used = [isinstance(layer, inference.InferenceStep) for layer in step.layers]
    assert any(used) == inference_form
    # The same variables as the sequence model.
    assert {id(v) for v in step.weights} == {id(v) for v in model.weights}
