"""The rule that chooses between a fused kernel and the portable path
(`keras_rda.ops.kernels.choose`), as Keras's LSTM chooses cuDNN.

The kernels themselves are tested against the portable path in their own
backend's run (`test_pallas_*.py` on JAX, `test_triton_*.py` on PyTorch);
this module runs on every backend.
"""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.ops import kernels

LAYERS = [keras_rda.RDA, keras_rda.RWA, keras_rda.ParallelRDA]


@pytest.mark.parametrize("value", ["auto", True, False])
def test_use_kernel_accepts_auto_true_false(value):
    assert kernels.validate_use_kernel(value) is value


@pytest.mark.parametrize("value", ["yes", 1, 0, None, "True"])
def test_use_kernel_refuses_anything_else(value):
    with pytest.raises(ValueError, match=r"argument `use_kernel`.*got"):
        kernels.validate_use_kernel(value)


def test_false_never_runs_the_kernel(monkeypatch):
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: None)
    assert kernels.choose(False) is False


def test_auto_runs_it_only_where_it_can_run_and_is_supported(monkeypatch):
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: None)
    assert kernels.choose("auto") is True
    assert kernels.choose("auto", unsupported="unroll=True") is False
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: "no GPU")
    assert kernels.choose("auto") is False


def test_true_names_why_it_cannot_run(monkeypatch):
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: None)
    assert kernels.choose(True) is True
    with pytest.raises(ValueError, match=r"'rda'.*use_kernel=True.*unroll=True"):
        kernels.choose(True, unsupported="unroll=True", layer_name="rda")
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: "no GPU is visible")
    with pytest.raises(ValueError, match="no GPU is visible"):
        kernels.choose(True)


def test_the_reasons_on_this_machine(monkeypatch):
    """On TensorFlow there is no kernel; on JAX and PyTorch without a GPU
    interpret mode is what lets one run."""
    backend = keras.backend.backend()
    monkeypatch.delenv(kernels.INTERPRET_VARIABLE, raising=False)
    reason = kernels.unavailable_reason()
    if backend == "tensorflow":
        assert "backend is tensorflow" in reason
    elif backend == "jax":
        import jax

        if jax.default_backend() != "gpu":
            assert kernels.INTERPRET_VARIABLE in reason
            monkeypatch.setenv(kernels.INTERPRET_VARIABLE, "1")
            assert kernels.unavailable_reason() is None


@pytest.mark.parametrize("layer_class", LAYERS)
def test_the_layers_keep_use_kernel_in_their_config(layer_class):
    layer = layer_class(3, use_kernel=False)
    config = layer.get_config()
    assert config["use_kernel"] is False
    assert layer_class.from_config(config).use_kernel is False
    # A config saved before the argument existed loads with "auto".
    del config["use_kernel"]
    assert layer_class.from_config(config).use_kernel == "auto"


@pytest.mark.parametrize("layer_class", LAYERS)
def test_the_layers_refuse_a_bad_use_kernel(layer_class):
    with pytest.raises(ValueError, match="use_kernel"):
        layer_class(3, use_kernel="always")


@pytest.mark.parametrize("layer_class", LAYERS)
def test_auto_off_a_gpu_is_the_portable_path(layer_class, monkeypatch):
    """Where no kernel can run (here: said to be so, on any machine),
    "auto" gives the same numbers as `use_kernel=False`, and True is
    refused with the reason."""
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: "no GPU is visible")
    x = np.random.default_rng(0).normal(size=(2, 6, 3)).astype("float32")
    auto = layer_class(4, return_sequences=True)
    off = layer_class(4, return_sequences=True, use_kernel=False)
    auto.build(x.shape)
    off.build(x.shape)
    off.set_weights(auto.get_weights())
    np.testing.assert_array_equal(np.asarray(auto(x)), np.asarray(off(x)))
    forced = layer_class(4, use_kernel=True)
    with pytest.raises(ValueError, match="use_kernel=True.*no GPU is visible"):
        forced(x)


def built(layer):
    layer.build((2, 5, 3))
    return layer


def test_unroll_and_float64_are_named_as_unsupported():
    assert "unroll" in built(keras_rda.RDA(3, unroll=True))._kernel_unsupported()
    assert "float64" in built(keras_rda.RWA(3, dtype="float64"))._kernel_unsupported()
    assert built(keras_rda.RDA(3))._kernel_unsupported() is None
    assert built(keras_rda.ParallelRDA(3))._kernel_unsupported() is None
    relu_s0 = keras_rda.RDA(3, attention_activation="relu", learn_initial_state=True)
    assert "ReLU" in built(relu_s0)._kernel_unsupported()
    widest = kernels.MAX_RECURRENCE_UNITS
    assert built(keras_rda.RWA(widest))._kernel_unsupported() is None
    assert "units" in built(keras_rda.RDA(widest + 1))._kernel_unsupported()
    # The scan kernel is element-wise: no width limit.
    assert built(keras_rda.ParallelRDA(widest + 1))._kernel_unsupported() is None
