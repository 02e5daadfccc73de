"""Zoo entries ffattn, ffmean and rda-attn (Raffel & Ellis, section 2.1)."""

import keras
import numpy as np
import pytest

from keras_rda.lab.tasks import Task
from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo import get_model_spec

PAPER_T0 = (50, 100, 500, 1000, 5000, 10000)


def leaky(x):
    return np.where(x > 0, x, 0.01 * x)


def reference_forward(weights, x, attention, mask_padding):
    """Section 2.1 in NumPy, one sequence at a time.

    With `mask_padding` the all-zero padding steps are left out; without it
    they are pooled like any other step (the paper's model).

    h_t = LReLU(W_xh x_t + b_xh); c = eq. 1 with a(h) = tanh(W_hc h + b_hc)
    or eq. 2 (unweighted mean); s = LReLU(W_cs c + b_cs);
    y = LReLU(W_sy s + b_sy).
    """
    w = {k: np.asarray(v, np.float64) for k, v in weights.items()}
    outputs = []
    for sequence in x:
        real = np.any(sequence != 0.0, axis=-1) | (not mask_padding)
        h = leaky(sequence[real] @ w["h_kernel"] + w["h_bias"])
        if attention:
            e = np.tanh(h @ w["attention_kernel"] + w["attention_bias"])[:, 0]
            alpha = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
            c = alpha @ h
        else:
            c = h.mean(axis=0)
        s = leaky(c @ w["s_kernel"] + w["s_bias"])
        outputs.append(leaky(s @ w["y_kernel"] + w["y_bias"]))
    return np.array(outputs)


def named_weights(model):
    out = {}
    for layer in model.layers:
        for weight in layer.weights:
            out[f"{layer.name}_{weight.name}"] = weight.numpy()
    return out


@pytest.mark.parametrize("name, params", [("ffattn", 10602), ("ffmean", 10501)])
def test_paper_parameter_counts(name, params):
    # Section 2.2: "10,602 vs. 10,501" parameters with D = 100.
    model = get_model_spec(name).build(get_task("ffa-addition", min_length=50))
    assert model.count_params() == params


@pytest.mark.parametrize("mask_padding", [False, True])
@pytest.mark.parametrize("name", ["ffattn", "ffmean"])
def test_matches_numpy_model_of_section_2_1(name, mask_padding, rng):
    task = get_task("ffa-multiplication", min_length=30)
    model = get_model_spec(name).build(task, units=8, mask_padding=mask_padding)
    # Random biases too, so that every term of the equations matters.
    model.set_weights(
        [w + 0.3 * rng.standard_normal(w.shape) for w in model.get_weights()]
    )
    x, _, _ = task.generate(4, rng)
    assert (x == 0.0).all(axis=-1).any()  # some padding to pool or to mask
    expected = reference_forward(
        named_weights(model), x, name == "ffattn", mask_padding
    )
    np.testing.assert_allclose(np.asarray(model(x)), expected, rtol=1e-5, atol=1e-6)


def test_paper_models_pool_over_padding_by_default(rng):
    task = get_task("ffa-addition", min_length=22, max_length=40)
    for name in ("ffattn", "ffmean"):
        model = get_model_spec(name).build(task, units=6)
        assert not any(isinstance(x, keras.layers.Masking) for x in model.layers)
    with pytest.raises(ValueError, match="mask_padding"):
        get_model_spec("ffattn").build(task, mask_padding="yes")


def test_paper_initialisation():
    model = get_model_spec("ffattn").build(get_task("ffa-addition", min_length=50))
    weights = named_weights(model)
    # N(0, 1/sqrt(fan_in)): fan_in = D = 100 for W_cs (10,000 draws).
    assert weights["s_kernel"].std() == pytest.approx(0.1, rel=0.03)
    assert weights["attention_kernel"].shape == (100, 1)
    for key, value in weights.items():
        if key.endswith("bias"):
            np.testing.assert_array_equal(value, 0.0)


@pytest.mark.parametrize(
    "name, overrides",
    [
        ("ffattn", {"mask_padding": True}),
        ("ffmean", {"mask_padding": True}),
        ("rda-attn", {}),
        ("lstm-attn", {}),
    ],
)
def test_padding_is_ignored(name, overrides, rng):
    task = get_task("ffa-addition", min_length=22, max_length=40)
    model = get_model_spec(name).build(task, units=6, **overrides)
    x, _, _ = task.generate(2, rng)
    padded = np.asarray(model(x))
    for i in range(2):
        length = int(np.any(x[i] != 0.0, axis=-1).sum())
        alone = np.asarray(model(x[i : i + 1, :length]))
        np.testing.assert_allclose(padded[i], alone[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["ffattn", "ffmean", "rda-attn"])
def test_trains_with_finite_loss(name, rng):
    task = get_task("ffa-addition", min_length=22)
    spec = get_model_spec(name)
    model = spec.build(task, units=8)
    # Eager: tracing a train step costs more than the two steps themselves.
    model.compile(
        spec.optimizer(), task.loss, metrics=task.keras_metrics(), run_eagerly=True
    )
    for _ in range(2):
        x, y, w = task.generate(16, rng)
        logs = model.train_on_batch(x, y, sample_weight=w, return_dict=True)
    assert np.isfinite(logs["loss"])
    assert 0.0 <= logs["accuracy"] <= 1.0


class _Sequences(Task):
    """A stand-in classification task: 3 classes, one label per sequence."""

    name = None
    output = "classification"
    num_classes = 3
    input_dim = 4

    def generate(self, batch_size, rng):
        x = rng.standard_normal((batch_size, 7, self.input_dim)).astype(np.float32)
        y = rng.integers(0, self.num_classes, batch_size).astype(np.int32)
        return x, y, np.ones(batch_size, np.float32)


def test_classification_head_emits_logits(rng):
    model = get_model_spec("ffattn").build(_Sequences(), units=5)
    x = rng.standard_normal((2, 7, 4)).astype(np.float32)
    logits = np.asarray(model(x))
    assert logits.shape == (2, 3)
    assert isinstance(model.layers[-1], keras.layers.Dense)  # no LReLU on top
    assert not isinstance(model.layers[1], keras.layers.Masking)


def test_per_step_tasks_are_refused():
    task = _Sequences()
    task.per_step = True
    for name in ("ffattn", "ffmean", "rda-attn", "lstm-attn"):
        with pytest.raises(ValueError, match="argument `task`"):
            get_model_spec(name).build(task)


@pytest.mark.parametrize("task_name", ["ffa-addition", "ffa-multiplication"])
def test_every_paper_length_builds(task_name):
    """Every T0 of Table 1 gives batches that the paper's model reads: one
    model (the attention model has no length-dependent weights) maps each
    to one finite prediction per sequence."""
    model = get_model_spec("ffattn").build(get_task(task_name), units=4)
    weights = model.count_params()
    for min_length in PAPER_T0:
        task = get_task(task_name, min_length=min_length)
        x, y, _ = task.generate(2, np.random.default_rng(min_length))
        assert x.shape == (2, min_length + min_length // 10, 2)
        assert y.shape == (2, 1)
        prediction = np.asarray(model(x))
        assert prediction.shape == y.shape and np.all(np.isfinite(prediction))
        assert model.count_params() == weights
