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
