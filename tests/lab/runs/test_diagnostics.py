"""`diagnostics`: the unit's internals and the gradient, measured correctly."""

import keras
import numpy as np
import pytest

from keras_rda.lab.runs import diagnostics
from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.tasks import get_task
from keras_rda.layers import RDA
from keras_rda.layers import RWA
from tests.helpers import set_random_weights


def _built(layer, x):
    layer(x)
    return layer


@pytest.mark.parametrize(
    "make",
    [
        lambda: RDA(5, variant="sigmoid-id"),
        lambda: RDA(5, variant="exp-tanh", learn_initial_state=True),
        lambda: RDA(5, attention_activation="relu", output_activation="tanh"),
        lambda: RWA(5),
    ],
    ids=["rda-sigmoid-id", "rda-exp-tanh-s0", "rda-relu", "rwa"],
)
def test_numpy_run_matches_the_layer(make):
    """The NumPy recurrence the diagnostics read gives the layer's output
    (two implementations, one from the papers' equations)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 9, 3)).astype(np.float32)
    layer = _built(make(), x)
    set_random_weights(layer, rng, scale=0.7)
    output, stats = diagnostics.run_unit(layer.cell, x)
    np.testing.assert_allclose(output, np.asarray(layer(x)), rtol=1e-4, atol=1e-5)
    assert stats["attention_logit_min"] <= stats["attention_logit_max"]
    assert stats["output_spread"] > 0


def test_discount_and_attention_statistics():
    """With `h_0 = 0` and one step, the attention logits are `x W_a + b_a`;
    a discount bias of -30 closes every gate; identical sequences give one
    output (spread 0)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 1, 2)).astype(np.float32)
    layer = _built(RDA(4), x)
    kernel, bias = (
        np.asarray(w, np.float64) for w in (layer.cell.kernel, layer.cell.bias)
    )
    bias[12:] = -30.0
    layer.cell.bias.assign(bias.astype(np.float32))
    logits = x[:, 0].astype(np.float64) @ kernel[:, 8:12] + bias[8:12]
    stats = diagnostics.unit_internals(layer.cell, x)
    assert stats["attention_logit_min"] == pytest.approx(logits.min(), abs=1e-6)
    assert stats["attention_logit_max"] == pytest.approx(logits.max(), abs=1e-6)
    assert stats["discount_mean"] < 1e-12
    assert stats["discount_below_half"] == 1.0
    assert stats["tail_weight"] == 1.0  # one step: it is the last tenth
    same = diagnostics.unit_internals(layer.cell, np.repeat(x[:1], 6, axis=0))
    assert same["output_spread"] < 1e-12


def test_tail_weight_follows_the_discount():
    """With constant gates the weights are `a gamma^(T-1-i)`: the last
    `L` of `T` steps hold `(1 - gamma^L) / (1 - gamma^T)` of the sum."""
    x = np.zeros((2, 40, 1), np.float32)
    layer = _built(RDA(3), x)
    bias = np.zeros(12, np.float32)
    bias[9:] = 0.5  # gamma = sigmoid(0.5) in every unit
    layer.cell.bias.assign(bias)
    layer.cell.recurrent_kernel.assign(np.zeros((3, 9), np.float32))
    gamma = 1.0 / (1.0 + np.exp(-0.5))
    expected = (1 - gamma**4) / (1 - gamma**40)
    stats = diagnostics.unit_internals(layer.cell, x)
    assert stats["tail_weight"] == pytest.approx(expected, rel=1e-9)
    assert stats["discount_mean"] == pytest.approx(gamma, rel=1e-9)


def test_gradient_statistics_of_a_linear_model():
    """For `y^ = X w` under the mean squared error the gradient is
    `2/N X^T (X w - y)`, computed here in NumPy."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 1)).astype(np.float32)
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(1, use_bias=False)(inputs))
    w = np.array([[3.0], [-2.0], [0.5]], np.float32)
    model.layers[-1].kernel.assign(w)
    stats = diagnostics.gradient_statistics(
        model, keras.losses.MeanSquaredError(), x, y
    )
    x64 = x.astype(np.float64)
    grad = 2.0 / len(x) * x64.T @ (x64 @ w - y)
    assert stats["grad_norm"] == pytest.approx(np.linalg.norm(grad), rel=1e-5)
    assert stats["grad_max"] == pytest.approx(np.abs(grad).max(), rel=1e-5)
    assert stats["grad_clipped"] == pytest.approx(np.mean(np.abs(grad) > 1.0))


def test_train_with_diagnose_records_them_in_the_curve():
    task = get_task("adding-problem", length=6)
    result = train(
        task,
        "rda",
        steps=4,
        batch_size=4,
        units=3,
        eval_every=2,
        eval_examples=8,
        verbose=0,
        diagnose=True,
    )
    for point in result.curve:
        for key in ("grad_norm", "discount_mean", "running_max_max"):
            assert np.isfinite(point["diag_" + key])
        # The largest batch loss is at least the interval's mean loss.
        assert point["diag_batch_loss_max"] >= point["loss"] - 1e-5


def test_probe_examples_must_be_positive():
    with pytest.raises(ValueError, match="probe_examples"):
        diagnostics.make_diagnostics(
            get_task("adding-problem", length=6), probe_examples=0
        )


def test_the_command_line_flag_reaches_the_run(monkeypatch, tmp_path):
    """`--diagnose` sets `RunSpec.diagnose`, which the lab passes to `train`."""
    from keras_rda.lab import runs
    from keras_rda.lab.cli import main

    handed = []
    monkeypatch.setattr(runs, "run", handed.append)
    argv = [
        "train", "mnist", "--model", "rda", "--out", str(tmp_path),
        "--verbose", "0",
    ]  # fmt: skip
    assert main(argv + ["--diagnose"]) == 0 and handed[-1].diagnose
    assert main(argv) == 0 and not handed[-1].diagnose
