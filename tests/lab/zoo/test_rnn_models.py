"""Tests of the RWA/RDA comparison zoo: heads, masking, paper settings."""

import keras
import numpy as np
import pytest

from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo import get_model_spec
from keras_rda.lab.zoo import model_names

MODELS = ["rda", "rda-exp-tanh", "rwa", "lstm", "gru"]


def test_registered_with_paper_settings():
    for name in MODELS:
        assert name in model_names()
        spec = get_model_spec(name)
        assert spec.learning_rate == 1e-3 and spec.batch_size == 100
        assert spec.units == 250
    for name in ["rda", "rda-exp-tanh", "lstm", "gru"]:
        assert get_model_spec(name).clipvalue == 1.0
    assert get_model_spec("rwa").clipvalue is None  # RWA paper: no clipping
    opt = get_model_spec("rda").optimizer()
    assert isinstance(opt, keras.optimizers.Adam) and opt.clipvalue == 1.0


@pytest.mark.parametrize("name", MODELS)
def test_heads(name):
    spec = get_model_spec(name)
    cases = [
        (get_task("addition", length=7), (2, 1)),
        (get_task("classify-length", max_length=7), (2, 2)),
        (get_task("copy", length=9, num_symbols=3, copy_length=2), (2, 9, 4)),
    ]
    for task, shape in cases:
        model = spec.build(task, units=4)
        x, _, _ = task.generate(2, np.random.default_rng(0))
        out = model(x)
        assert tuple(out.shape) == shape
        assert np.all(np.isfinite(keras.ops.convert_to_numpy(out)))


def _assert_padding_is_masked(model, x):
    """`model` scores `x` padded with 6 zero steps as `x` itself."""
    padding = np.zeros((x.shape[0], 6, x.shape[2]), "float32")
    padded = np.concatenate([x, padding], axis=1)
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(model(padded)),
        keras.ops.convert_to_numpy(model(x)),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize("name", MODELS)
def test_padding_is_masked(name):
    """A padded sequence scores as the same sequence without the padding."""
    task = get_task("classify-length", max_length=12)
    model = get_model_spec(name).build(task, units=5)
    x = np.random.default_rng(1).standard_normal((1, 6, 1)).astype("float32")
    _assert_padding_is_masked(model, x)


def test_rda_variants_and_forget_bias():
    task = get_task("addition", length=5)
    rda = get_model_spec("rda").build(task, units=3).get_layer("rda")
    assert rda.get_config()["attention_activation"] == "sigmoid"
    exp = get_model_spec("rda-exp-tanh").build(task, units=3).get_layer("rda_exp_tanh")
    config = exp.get_config()
    assert config["attention_activation"] == "exp"
    assert config["output_activation"] == "tanh"
    lstm = get_model_spec("lstm").build(task, units=3).get_layer("lstm")
    bias = keras.ops.convert_to_numpy(lstm.cell.bias)
    np.testing.assert_array_equal(bias[3:6], 1.0)  # forget gate block
    np.testing.assert_array_equal(np.delete(bias, np.s_[3:6]), 0.0)


@pytest.mark.parametrize(
    "name, layer_name, arguments, expected",
    [
        ("rda", "rda", {"attention_activation": "relu"}, ("relu", "linear", "linear")),
        ("rda", "rda", {"attention_activation": "exp"}, ("exp", "linear", "linear")),
        (
            "rda-exp-tanh",
            "rda_exp_tanh",
            {"attention_activation": "softplus"},
            ("softplus", "linear", "tanh"),
        ),
        ("rda", "rda", {"output_activation": "tanh"}, ("sigmoid", "linear", "tanh")),
    ],
)
def test_rda_activation_replaces_the_variants_own(
    name, layer_name, arguments, expected
):
    """RDA paper 6.2 compares attention activations: an activation given to
    an RDA entry replaces its variant's, the variant's others stay."""
    task = get_task("addition", length=5)
    model = get_model_spec(name).build(task, units=3, **arguments)
    config = model.get_layer(layer_name).get_config()
    activations = tuple(
        config[key]
        for key in ("attention_activation", "hidden_activation", "output_activation")
    )
    assert activations == expected


def test_rda_learns_initial_state_where_the_paper_did():
    classify = get_task("classify-length", max_length=5)
    assert classify.learn_initial_state
    for name, layer in [("rda", "rda"), ("rda-exp-tanh", "rda_exp_tanh")]:
        model = get_model_spec(name).build(classify, units=3)
        assert model.get_layer(layer).get_config()["learn_initial_state"]
        other = get_model_spec(name).build(get_task("addition", length=5), units=3)
        assert not other.get_layer(layer).get_config()["learn_initial_state"]


@pytest.mark.parametrize(
    "name, trained",
    [("rda", None), ("rda-exp-tanh", None), ("rwa", None), ("lstm", 2), ("gru", 1)],
)
def test_every_model_learns_its_initial_state_on_classify_length(name, trained):
    """RDA paper 6.3: on classify length "All RNN architectures could learn
    their initial hidden state"; the RWA paper's LSTM starts from zeros."""
    classify = get_task("classify-length", max_length=5)
    model = get_model_spec(name).build(classify, units=3)
    layer = model.layers[2]  # inputs, padding mask, the recurrent layer
    if trained is None:
        assert layer.get_config()["learn_initial_state"]
    else:
        assert len(layer.states) == trained
    rwa_task = get_task("classify-by-length", max_length=5)
    if trained is not None:
        plain = get_model_spec(name).build(rwa_task, units=3)
        assert plain.count_params() == model.count_params() - 3 * trained


def _numpy_lstm(x, kernel, recurrent, bias, h, c):
    """Keras's LSTM (gates i, f, c, o; sigmoid and tanh) from `h`, `c`."""
    sigmoid = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    outputs = []
    for t in range(x.shape[1]):
        i, f, g, o = np.split(x[:, t] @ kernel + h @ recurrent + bias, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outputs.append(h)
    return np.stack(outputs, axis=1)


def test_lstm_learns_its_initial_state_when_asked():
    """RDA paper Table 2 lets every model learn its initial state."""
    task = get_task("copy", length=6, num_symbols=3, copy_length=2)
    plain = get_model_spec("lstm").build(task, units=4)
    model = get_model_spec("lstm").build(task, units=4, learn_initial_state=True)
    assert model.count_params() == plain.count_params() + 2 * 4
    rng = np.random.default_rng(0)
    h0, c0 = rng.standard_normal((2, 4)).astype("float32")
    wrapper = model.get_layer("lstm")
    for state, value in zip(wrapper.states, [h0, c0]):
        state.assign(value)
    x, _, _ = task.generate(3, rng)
    kernel, recurrent, bias = (
        keras.ops.convert_to_numpy(w) for w in wrapper.layer.weights
    )
    expected = _numpy_lstm(x, kernel, recurrent, bias, h0[None], c0[None])
    hidden = keras.Model(model.inputs, wrapper.output)
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(hidden(x)), expected, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("name, num_states", [("lstm", 2), ("gru", 1)])
def test_learned_initial_state_trains_masks_and_saves(name, num_states, tmp_path):
    task = get_task("classify-length", max_length=12)
    model = get_model_spec(name).build(task, units=5, learn_initial_state=True)
    states = model.get_layer(name).states
    assert len(states) == num_states
    x = np.random.default_rng(2).standard_normal((2, 6, 1)).astype("float32")
    _assert_padding_is_masked(model, x)
    # One training step moves the states away from zero.
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.train_on_batch(x, np.array([0, 1]))
    for weight in states:
        assert np.any(keras.ops.convert_to_numpy(weight) != 0.0)
    path = tmp_path / f"{name}.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(loaded(x)),
        keras.ops.convert_to_numpy(model(x)),
        rtol=1e-6,
    )


def test_learn_initial_state_must_be_a_boolean():
    task = get_task("classify-length", max_length=5)
    for name in ["lstm", "gru"]:
        with pytest.raises(ValueError, match="learn_initial_state"):
            get_model_spec(name).build(task, units=3, learn_initial_state="yes")
