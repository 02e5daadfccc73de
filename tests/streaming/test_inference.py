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
    keras.utils.set_random_seed(0)  # the same weights in any test order
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


def reference(cell, x, sums=None):
    """The unit's equations (RDA paper section 5; RWA paper eq. 2-7) in
    float64, without rescaling: outputs `[B, T, units]`. A list `sums`
    receives `(h, n, d)` before each step."""
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
        if sums is not None:
            sums.append((h, n, d))
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


def compiled(function):
    """`function` compiled by the backend (10,000 eager steps are slow)."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        return tf.function(function)
    if backend == "jax":
        import jax

        return jax.jit(function)
    return function


def training_step(cell, x_t, states):
    return cell(x_t, states, training=False)


def stream_inference(cell, x, sequence_states):
    """The inference form from a training-form state; outputs and the
    final state converted back to the training form."""
    states = inference.to_stream_states(cell, sequence_states)
    outputs, states = stream(inference.inference_step, cell, x, states)
    return outputs, inference.to_sequence_states(cell, states)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_the_inference_form_equals_the_papers_equations(name):
    cell = built(name)
    assert inference.has_inference_form(cell)
    x = np.random.RandomState(0).randn(2, 12, FEATURES).astype("float32")
    got, _ = stream_inference(cell, x, cell.get_initial_state(batch_size=2))
    np.testing.assert_allclose(got, reference(cell, x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_the_inference_form_equals_the_training_form(name):
    """Outputs, over a long stream with inputs large enough that the
    running maximum moves and the discounted past underflows, from the
    initial and the all-zero state (`reset_state`'s), and the state handed
    back: the training form continued from it equals either form run on."""
    cell = built(name)
    rng = np.random.RandomState(0)
    x = rng.randn(3, 60, FEATURES).astype("float32")
    # At 40x these weights put every attention logit of a row below -69
    # for steps in a row, where the plain form's floor acts by design
    # (its own tests below compare it with the floored equations).
    x[:, 10:14] *= 40.0 if inference.inference_form(cell) == "scaled" else 12.0
    x[1, 30:] *= 15.0
    later_x = rng.randn(3, 10, FEATURES).astype("float32")
    zeros = [np.zeros((3, UNITS), "float32") for _ in cell.state_size]
    for start in (cell.get_initial_state(batch_size=3), zeros):
        want, want_states = stream(training_step, cell, x, start)
        got, got_states = stream_inference(cell, x, start)
        assert np.all(np.isfinite(got))
        # Float32 rounding, fed back through h for 60 steps of large inputs:
        # rows 0 and 2 contract it; row 1's inputs (x 15 from step 30) grow
        # any rounding a thousandfold in either form, which the one-step
        # comparison below leaves out.
        np.testing.assert_allclose(got[::2], want[::2], rtol=2e-3, atol=2e-3)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-2, atol=1e-2)
        # The averages agree; the stream carries r = n / d and d (or log d)
        # (plain n, d against n^ = n exp(-m), d^ = d exp(-m)).
        n, d = got_states[-3:-1]
        n_want, d_want = want_states[-3:-1]
        average, want_average = n / d, n_want / d_want
        np.testing.assert_allclose(
            average[::2], want_average[::2], rtol=2e-4, atol=1e-4
        )
        np.testing.assert_allclose(average[1], want_average[1], rtol=1e-2, atol=1e-2)
        # The handed-back state continues the stream in the training form.
        later, _ = stream(training_step, cell, later_x, got_states)
        want_later, _ = stream(training_step, cell, later_x, want_states)
        np.testing.assert_allclose(later[::2], want_later[::2], rtol=2e-4, atol=1e-4)
        np.testing.assert_allclose(later[1], want_later[1], rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_each_step_is_as_close_to_the_equations_as_the_training_form(name):
    """One step at a time from the float64 equations' own state (rounded
    to float32), so that no error is fed back: over every step of a stream
    with large inputs, the inference form's distance from the equations'
    next output is at most twice the training form's plus 1e-5 (float32
    rounding of gate pre-activations that reach 20 here, 2e-6 each, which
    the two forms sum in different orders)."""
    cell = built(name)
    rng = np.random.RandomState(0)
    x = rng.randn(3, 60, FEATURES).astype("float32")
    x[:, 10:14] *= 12.0
    x[1, 30:] *= 15.0
    sums = []
    with np.errstate(all="ignore"):
        exact = reference(cell, x, sums)
    got_error = want_error = 0.0
    for t, (_, n, d) in enumerate(sums):
        if not (np.all(np.isfinite(exact[:, t])) and np.all(d > 1e-30) or t == 0):
            continue
        if t == 0:
            states = inference.to_stream_states(cell, cell.get_initial_state(3))
        else:
            # The stream's state `[r, d]` or `[r, log d]`, rounded once from
            # float64; the training form's state converted from it, so that
            # both forms start from the same float32 numbers.
            scale = d if inference.inference_form(cell) == "plain" else np.log(d)
            states = [np.asarray(v, "float32") for v in (n / d, scale)]
        got, _ = inference.inference_step(cell, x[:, t], states)
        start = inference.to_sequence_states(cell, states)
        want, _ = training_step(cell, x[:, t], start)
        got_error = max(got_error, np.abs(np.asarray(got) - exact[:, t]).max())
        want_error = max(want_error, np.abs(np.asarray(want) - exact[:, t]).max())
    assert got_error <= 2.0 * want_error + 1e-5, (got_error, want_error)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_a_given_hidden_state_with_empty_sums_is_read_as_the_training_form_reads_it(
    name,
):
    """An `initial_state` `[h_0, 0, 0, 0]` (a decoder seeded with an
    encoder's `h`): the training form reads `h_0` where no `s0` is learned
    and `f_h(s0)` where one is; the stream reads the same."""
    cell = built(name)
    rng = np.random.RandomState(2)
    x = rng.randn(2, 6, FEATURES).astype("float32")
    start = [np.zeros((2, UNITS), "float32") for _ in cell.state_size]
    if cell.gates_read_hidden:
        start[0] = np.tanh(rng.randn(2, UNITS)).astype("float32")
    want, want_states = stream(training_step, cell, x, start)
    got, got_states = stream_inference(cell, x, start)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    n, d = got_states[-3:-1]
    n_want, d_want = want_states[-3:-1]
    np.testing.assert_allclose(n / d, n_want / d_want, rtol=1e-5, atol=1e-5)


def reference_log_domain(cell, x, floor=None):
    """The equations in float64 with the sums kept as `log n+`, `log n-`,
    `log d` (exact for any weight, also below float64's range): outputs
    `[B, T, units]`. With `floor`, every `a_t < floor` is `floor`."""
    kernel = np.asarray(cell.kernel, "float64")
    bias = np.asarray(cell.bias, "float64") if cell.use_bias else 0.0
    units = cell.units
    batch = x.shape[0]
    h = np.zeros((batch, units))
    log_pos = np.full((batch, units), -np.inf)
    log_neg = np.full((batch, units), -np.inf)
    log_d = np.full((batch, units), -np.inf)
    outputs = []
    for t in range(x.shape[1]):
        pre = x[:, t].astype("float64") @ kernel + bias
        if cell.gates_read_hidden:
            pre[:, units:] += h @ np.asarray(cell.recurrent_kernel, "float64")
        blocks = np.split(pre, cell.num_blocks, axis=-1)
        z = blocks[0] * np.tanh(blocks[1])
        log_a = -np.logaddexp(0.0, -blocks[2])  # log sigmoid
        if floor is not None:
            log_a = np.maximum(log_a, np.log(floor))
        log_gamma = -np.logaddexp(0.0, -blocks[3]) if cell.discount else 0.0
        with np.errstate(divide="ignore"):
            log_pos = np.logaddexp(
                log_pos + log_gamma, log_a + np.log(np.maximum(z, 0))
            )
            log_neg = np.logaddexp(
                log_neg + log_gamma, log_a + np.log(np.maximum(-z, 0))
            )
        log_d = np.logaddexp(log_d + log_gamma, log_a)
        h = np.exp(log_pos - log_d) - np.exp(log_neg - log_d)
        outputs.append(h)
    return np.stack(outputs, 1)


#: The plain form's smallest attention weight, 1 / (1 + e^69).
FLOOR = 1.0 / (1.0 + np.exp(inference.NEGATIVE_LOGIT_CEILING))


@pytest.mark.parametrize("name", ["RDA sigmoid-id", "ParallelRDA"])
def test_the_plain_form_over_10000_steps_of_large_and_tiny_inputs(name):
    """The default (sigmoid) unit in the plain form against the equations in
    float64: 10,000 steps whose inputs alternate between tiny (1e-4) and
    large (up to 60) every 50 to 1,000 steps, so that attention and discount
    logits reach -200 and +200 (weights of e^-200: below float32's range)
    and the discounted past decays below every float32."""
    cell = built(name)
    rng = np.random.RandomState(3)
    steps = 10_000
    x = rng.randn(2, steps, FEATURES)
    scale = np.ones(steps)
    t = 0
    while t < steps:
        length = rng.randint(50, 1000)
        scale[t : t + length] = rng.choice([1e-4, 1.0, 20.0, 60.0])
        t += length
    x = (x * scale[None, :, None]).astype("float32")
    # Input weights ~ N(0, 1): the attention logit reaches |x| * 3. Small
    # recurrent weights keep h's feedback contracting, so float32 rounding
    # is not amplified away from the float64 run.
    cell.kernel.assign(rng.randn(*cell.kernel.shape).astype("float32"))
    if cell.gates_read_hidden:
        recurrent = 0.05 * rng.randn(*cell.recurrent_kernel.shape)
        cell.recurrent_kernel.assign(recurrent.astype("float32"))
    step = compiled(lambda x_t, states: inference.inference_step(cell, x_t, states))
    states = inference.to_stream_states(cell, cell.get_initial_state(batch_size=2))
    outputs = []
    for t in range(steps):
        output, states = step(x[:, t], states)
        outputs.append(np.asarray(output))
    got = np.stack(outputs, 1)
    assert np.all(np.isfinite(got))
    want = reference_log_domain(cell, x, floor=FLOOR)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
    # Where the floor changed nothing, that is the equations themselves.
    exact = reference_log_domain(cell, x)
    same = np.all(np.abs(want - exact) < 1e-6, axis=-1)
    assert same.mean() > 0.5
    np.testing.assert_allclose(got[same], exact[same], rtol=1e-3, atol=1e-3)


def test_the_floor_is_the_only_difference_from_the_equations():
    """Attention logits below -69 every step: the plain form weighs each
    step `1 / (1 + e^69)` (the module docstring's one difference), which
    the float64 equations with that floor reproduce, while the scaled
    (training) form gives the equations' own average, dominated by the
    largest weight."""
    cell = built("ParallelRDA")
    units = UNITS
    kernel = np.zeros(cell.kernel.shape, "float32")
    kernel[0, :units] = 1.0  # u = x_0
    kernel[1, units : 2 * units] = 10.0  # tanh(g) = 1
    kernel[2, 2 * units : 3 * units] = 1.0  # attention logit = x_2
    cell.kernel.assign(kernel)
    cell.bias.assign(np.zeros(cell.bias.shape, "float32"))  # gamma = 1/2
    x = np.zeros((1, 3, FEATURES), "float32")
    x[0, :, 0] = [1.0, 2.0, 3.0]
    x[0, :, 1] = 1.0
    x[0, :, 2] = [-200.0, -150.0, -120.0]
    got, _ = stream_inference(cell, x, cell.get_initial_state(batch_size=1))
    floored = reference_log_domain(cell, x, floor=FLOOR)
    np.testing.assert_allclose(got, floored, rtol=1e-5)
    # With the floor: (0.25 * 1 + 0.5 * 2 + 3) / 1.75 at the last step.
    np.testing.assert_allclose(got[0, -1, 0], (0.25 + 1.0 + 3.0) / 1.75, rtol=1e-5)
    training, _ = stream(training_step, cell, x, cell.get_initial_state(batch_size=1))
    np.testing.assert_allclose(training, reference_log_domain(cell, x), rtol=1e-5)
    np.testing.assert_allclose(training[0, -1, 0], 3.0, rtol=1e-5)


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
