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


H100 = kernels.Device("cuda", "NVIDIA H100", (9, 0), 227 * 1024)
A10 = kernels.Device("cuda", "NVIDIA A10", (8, 6), 99 * 1024)
T4 = kernels.Device("cuda", "Tesla T4", (7, 5), 64 * 1024)
MI250 = kernels.Device("rocm", "AMD Instinct MI250X", None, 64 * 1024)


@pytest.fixture
def on_a_gpu(monkeypatch):
    """A machine where the kernels can run (said to be so): `device(d)`
    puts the GPU `d` there, `measured(kernel)` a record that shows
    `kernel` faster on it."""
    monkeypatch.delenv(kernels.INTERPRET_VARIABLE, raising=False)
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: None)
    monkeypatch.setattr(kernels, "MEASURED_FASTER", {})

    class Machine:
        @staticmethod
        def device(device):
            monkeypatch.setattr(kernels, "gpu_device", lambda backend=None: device)

        @staticmethod
        def measured(kernel="recurrence", device_class="sm_90"):
            key = (kernel, keras.backend.backend(), device_class)
            kernels.MEASURED_FASTER[key] = "results/benchmarks/a-record.json"

    Machine.device(H100)
    return Machine


def test_false_never_runs_the_kernel(on_a_gpu):
    on_a_gpu.measured()
    assert kernels.choose(False) is False


def test_no_kernel_is_measured_faster_yet():
    """Today `"auto"` is the portable path everywhere."""
    assert kernels.MEASURED_FASTER == {}


def test_every_measured_entry_names_a_committed_record():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[3]
    for (kernel, backend, device_class), record in kernels.MEASURED_FASTER.items():
        assert kernel in ("recurrence", "scan")
        assert backend in kernels.KERNEL_BACKENDS
        assert (kernel, backend) not in kernels.NEVER_AUTO, kernels.NEVER_AUTO[
            kernel, backend
        ]
        assert device_class.startswith("sm_")
        assert (root / record).is_file(), record


def test_the_pallas_recurrence_stays_out_of_auto_for_good():
    """Its compile takes minutes and spills (issue 81): no record may put it
    in `MEASURED_FASTER`, and the guide says so with the reason."""
    import pathlib

    assert "compiles for minutes" in kernels.NEVER_AUTO["recurrence", "jax"]
    root = pathlib.Path(__file__).resolve().parents[3]
    guide = (root / "docs" / "guides" / "backends-and-performance.md").read_text()
    assert (
        'The Pallas recurrence (`RDA` and `RWA` on JAX) stays out of `"auto"` '
        "for good" in " ".join(guide.split())
    )


def test_auto_is_the_portable_path_where_nothing_is_measured(on_a_gpu):
    """A GPU where the kernel can run is not enough: without a record
    that shows it faster, "auto" keeps the portable path; True runs it."""
    assert kernels.choose("auto") is False
    assert kernels.choose("auto", workload=kernels.Workload("scan")) is False
    assert kernels.choose(True) is True


def test_auto_runs_a_measured_kernel_only_on_its_device_class(on_a_gpu):
    on_a_gpu.measured("recurrence", "sm_90")
    recurrence = kernels.Workload("recurrence", 100, 1000, 250, 4)
    assert kernels.choose("auto", workload=recurrence) is True
    # Not the other kernel, nor another device class.
    assert kernels.choose("auto", workload=kernels.Workload("scan")) is False
    on_a_gpu.device(A10)
    assert kernels.choose("auto", workload=recurrence) is False
    # Nor in interpret mode, which measures nothing.
    on_a_gpu.device(H100)
    assert kernels.choose("auto", workload=recurrence) is True
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(kernels.INTERPRET_VARIABLE, "1")
        assert kernels.choose("auto", workload=recurrence) is False


def test_auto_falls_back_where_a_measured_kernel_cannot_run(on_a_gpu, monkeypatch):
    on_a_gpu.measured()
    assert kernels.choose("auto") is True
    assert kernels.choose("auto", unsupported="unroll=True") is False
    monkeypatch.setattr(kernels, "size_reason", lambda *a: "too large")
    assert kernels.choose("auto") is False
    with pytest.raises(ValueError, match="use_kernel=True.*too large"):
        kernels.choose(True)
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: "no GPU")
    assert kernels.choose("auto") is False


def test_true_names_why_it_cannot_run(on_a_gpu, monkeypatch):
    assert kernels.choose(True) is True
    with pytest.raises(ValueError, match=r"'rda'.*use_kernel=True.*unroll=True"):
        kernels.choose(True, unsupported="unroll=True", layer_name="rda")
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: "no GPU is visible")
    with pytest.raises(ValueError, match="no GPU is visible"):
        kernels.choose(True)


@pytest.mark.parametrize(
    "device, words",
    [
        (T4, r"compute capability 8\.0 or later; Tesla T4 has 7\.5"),
        (MI250, "CUDA GPUs; AMD Instinct MI250X is a rocm device"),
        (kernels.Device("cuda", "a GPU", None, None), "does not report"),
    ],
)
def test_only_cuda_of_compute_capability_8_or_later(on_a_gpu, device, words):
    on_a_gpu.device(device)
    on_a_gpu.measured(device_class="sm_75")
    assert kernels.device_reason(device) is not None
    assert kernels.choose("auto") is False
    with pytest.raises(ValueError, match=f"use_kernel=True.*{words}"):
        kernels.choose(True)


def test_a_measured_device_class_is_a_cuda_capability():
    assert kernels.device_class(H100) == "sm_90"
    assert kernels.device_class(A10) == "sm_86"
    assert kernels.device_class(MI250) is None
    assert kernels.device_class(None) is None


def test_shared_memory_beyond_the_device_limit_is_refused():
    assert kernels.device_reason(A10, 68 * 1024) is None
    reason = kernels.device_reason(A10, 132 * 1024)
    assert "135,168 bytes of shared memory" in reason and "NVIDIA A10" in reason
    assert kernels.device_reason(H100, 132 * 1024) is None
    # A backend that does not report the limit (JAX) is not refused.
    unknown = kernels.Device("cuda", "a GPU", (9, 0), None)
    assert kernels.device_reason(unknown, 10**9) is None


def test_the_shared_memory_a_workload_needs_reaches_the_decision(on_a_gpu, monkeypatch):
    on_a_gpu.device(A10)
    on_a_gpu.measured(device_class="sm_86")
    needs = {}
    monkeypatch.setattr(
        kernels, "shared_memory_needed", lambda workload, backend: needs.get("bytes")
    )
    assert kernels.choose("auto") is True
    needs["bytes"] = 132 * 1024
    assert kernels.choose("auto") is False
    with pytest.raises(ValueError, match="use_kernel=True.*shared memory"):
        kernels.choose(True, layer_name="rda")


def test_interpret_mode_skips_the_device_checks(on_a_gpu, monkeypatch):
    on_a_gpu.device(T4)
    monkeypatch.setenv(kernels.INTERPRET_VARIABLE, "1")
    assert kernels.choose(True) is True


def test_int32_and_grid_limits():
    assert kernels.int32_reason("x", (2**15, 2**16 - 1)) is None
    reason = kernels.int32_reason("the inputs", (2, 2**15, 2**15))
    assert "2,147,483,648 elements" in reason and "int32" in reason
    assert kernels.int32_reason("x", (None, 2**31)) is None
    assert kernels.grid_reason("chunks", kernels.MAX_GRID_YZ) is None
    assert "65,535" in kernels.grid_reason("chunks", kernels.MAX_GRID_YZ + 1)


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


@pytest.mark.parametrize("layer_class", LAYERS)
def test_the_layers_ask_for_their_kernel_with_their_sizes(layer_class, monkeypatch):
    """Each layer hands `choose` its kernel's workload: the recurrence with
    the gate blocks of RDA (4) or RWA (3), the scan with its units."""
    seen = []

    def choose(use_kernel, unsupported=None, layer_name="layer", workload=None):
        seen.append(workload)
        return False

    monkeypatch.setattr(kernels, "choose", choose)
    layer = layer_class(4)
    layer(np.zeros((2, 6, 3), "float32"))
    expected = {
        keras_rda.RDA: kernels.Workload("recurrence", 2, 6, 4, 4),
        keras_rda.RWA: kernels.Workload("recurrence", 2, 6, 4, 3),
        keras_rda.ParallelRDA: kernels.Workload("scan", 2, 6, 4),
    }[layer_class]
    assert seen[-1] == expected


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
