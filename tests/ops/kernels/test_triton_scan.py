"""The ParallelRDA scan as Triton kernels (`keras_rda.ops.kernels.triton_scan`)
against the portable `keras_rda.ops.parallel_scan.discounted_average_scan`:
the averages, the final state and the gradients of every input; and the
`torch.library` op's registrations (`torch.library.opcheck`).

PyTorch-backend run only. Without a GPU the kernels run in Triton's
interpreter on CPU tensors (`interpret=True`); with one, the same tests run
the compiled kernels on CUDA tensors:

    KERAS_BACKEND=torch pytest -n 0 tests/ops/kernels/test_triton_scan.py

Neither torch nor Triton is imported at module level: this file is
collected in the TensorFlow run too (and deselected there), and importing
Triton in a process that has loaded TensorFlow aborts it.
"""

import pytest

from keras_rda.ops import parallel_scan
from tests.ops.kernels import scan_cases

pytestmark = pytest.mark.requires_backend("torch")

NAMES = ("averages", "final n^", "final d^", "final m")


def _device():
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _tensor(x, requires_grad=False):
    import torch

    return torch.tensor(x, device=_device(), requires_grad=requires_grad)


def _results_and_gradients(scan, inputs, cotangents):
    """`(outputs, gradients)` of `scan`, the gradients by `torch.autograd`
    of the given cotangents (none on the final `m`, which has no gradient)."""
    import torch

    features, log_a, log_gamma, positive, state = inputs
    args = [_tensor(x, True) for x in (features, log_a, log_gamma, *state)]
    positive = None if positive is None else _tensor(positive)
    averages, (n, d, m) = scan(*args[:3], positive, tuple(args[3:]))
    outputs = (averages, n, d)
    grads = torch.autograd.grad(
        outputs, args, [_tensor(c) for c in cotangents], allow_unused=True
    )
    grads = [torch.zeros_like(a) if g is None else g for a, g in zip(args, grads)]
    numpy = [x.detach().cpu().numpy() for x in (averages, n, d, m, *grads)]
    return numpy[:4], numpy[4:]


@pytest.mark.parametrize(
    "batch, time, units, positive, initial_state, chunk_size",
    [case[1:] for case in scan_cases.CASES],
    ids=[case[0] for case in scan_cases.CASES],
)
def test_kernel_matches_the_portable_scan(
    monkeypatch, batch, time, units, positive, initial_state, chunk_size
):
    import torch

    from keras_rda.ops.kernels import triton_scan

    # Tiles of 16 units: 17 units take two programs, the second mostly masked.
    monkeypatch.setattr(triton_scan, "BLOCK_UNITS", 16)
    inputs, cotangents = scan_cases.make_case(
        batch, time, units, positive, initial_state
    )

    def kernel(*args):
        return triton_scan.discounted_average_scan(
            *args, interpret=not torch.cuda.is_available(), chunk_size=chunk_size
        )

    expected, expected_grads = _results_and_gradients(
        parallel_scan.discounted_average_scan, inputs, cotangents
    )
    actual, actual_grads = _results_and_gradients(kernel, inputs, cotangents)
    for name, a, e in zip(NAMES, actual, expected):
        scan_cases.assert_close(a, e, name)
    scan_cases.assert_gradients_close(actual_grads, expected_grads, initial_state)


def test_op_registrations_pass_opcheck():
    # The schema, the fake (meta) implementation against the real one, and
    # the autograd registration, as `torch.compile` relies on them.
    import torch

    from keras_rda.ops.kernels import triton_scan

    inputs, _ = scan_cases.make_case(2, 5, 3, "steps", "given", seed=1)
    features, log_a, log_gamma, positive, state = inputs
    args = [_tensor(x, True) for x in (features, log_a, log_gamma)]
    state = [_tensor(s, True) for s in state]
    interpret = not torch.cuda.is_available()
    triton_scan.discounted_average_scan(  # sets interpret mode up
        *args, None, state, interpret=interpret, chunk_size=2
    )
    torch.library.opcheck(
        torch.ops.keras_rda.parallel_rda_scan,
        (*args, _tensor(positive).to(torch.int8), *state, 2, interpret),
    )


def test_bad_chunk_size_and_mask_shape_raise():
    import torch

    from keras_rda.ops.kernels import triton_scan

    x = torch.zeros((2, 5, 3))
    state = (torch.zeros((2, 3)),) * 3
    with pytest.raises(ValueError, match="`chunk_size`.*power of two, got 6"):
        triton_scan.discounted_average_scan(x, x, x, None, state, chunk_size=6)
    with pytest.raises(ValueError, match=r"`positive`.*got shape \(2, 5, 2\)"):
        triton_scan.discounted_average_scan(
            x, x, x, torch.ones((2, 5, 2), dtype=torch.bool), state, interpret=True
        )


def test_sizes_past_int32_offsets_or_the_grid_are_refused():
    """The kernels' offsets are int32 and CUDA's grid has at most 65,535
    programs along its chunk and unit axes: `size_reason` says so, the
    scan raises naming `features` (nothing is allocated: meta tensors)."""
    import torch

    from keras_rda.ops.kernels import triton_scan

    assert triton_scan.size_reason(100, 1000, 250) is None
    assert triton_scan.size_reason(None, None, 250) is None
    assert "int32" in triton_scan.size_reason(2, 2**15, 2**15)
    assert "int32" not in triton_scan.size_reason(1, 2**16 * 32, 1)
    assert "chunks of 32" in triton_scan.size_reason(1, 2**16 * 32, 1)
    assert triton_scan.size_reason(1, 65535 * 32, 1) is None
    big = torch.empty((2, 2**15, 2**15), device="meta")
    state = (torch.empty((2, 2**15), device="meta"),) * 3
    with pytest.raises(
        ValueError, match=r"argument `features`.*2, 32768, 32768.*int32"
    ):
        triton_scan.discounted_average_scan(big, big, big, None, state)


def test_the_size_limits_reach_the_layers_choice(monkeypatch):
    """Under "auto" (a measured kernel, on a GPU said to be there) a
    sequence past the limits takes the portable path; True raises."""
    from keras_rda.ops import kernels

    monkeypatch.delenv(kernels.INTERPRET_VARIABLE, raising=False)
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: None)
    device = kernels.Device("cuda", "NVIDIA H100", (9, 0), 227 * 1024)
    monkeypatch.setattr(kernels, "gpu_device", lambda backend=None: device)
    monkeypatch.setattr(
        kernels, "MEASURED_FASTER", {("scan", "torch", "sm_90"): "a-record.json"}
    )
    fits = kernels.Workload("scan", 100, 1000, 250)
    too_large = kernels.Workload("scan", 2, 2**15, 2**15)
    assert kernels.choose("auto", workload=fits) is True
    assert kernels.choose("auto", workload=too_large) is False
    with pytest.raises(ValueError, match="use_kernel=True.*int32"):
        kernels.choose(True, workload=too_large)
