"""The Triton recurrence (`keras_rda.ops.kernels.triton_recurrence`) against
a float64 PyTorch loop of the unit's equations and against the cell's own
step, forward and every gradient.

PyTorch-backend run only. Without a GPU the kernels run in Triton's
interpreter on CPU tensors (the module sets `KERAS_RDA_KERNEL_INTERPRET=1`);
with one, the same tests run the compiled kernels on CUDA tensors:

    KERAS_BACKEND=torch pytest -n 0 tests/ops/kernels/test_triton_recurrence.py

Neither torch nor Triton is imported at module level: this file is
collected in the TensorFlow run too (and deselected there), and importing
Triton in a process that has loaded TensorFlow aborts it.
"""

import numpy as np
import pytest

from keras_rda.ops import kernels
from keras_rda.ops.rda_recurrence import RecurrenceSpec

pytestmark = pytest.mark.requires_backend("torch")


@pytest.fixture(autouse=True)
def _interpret_without_gpu(monkeypatch):
    import torch

    if not torch.cuda.is_available():
        monkeypatch.setenv(kernels.INTERPRET_VARIABLE, "1")


def _device():
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _kernel():
    from keras_rda.ops.kernels import triton_recurrence

    return triton_recurrence


# ---------------------------------------------------------------- reference


def _log_attention(logits, activation):
    """`(log f_a, where f_a > 0)`: RDA paper section 5.1's activations."""
    import torch
    import torch.nn.functional as F

    if activation == "exp":
        return logits, None
    if activation == "sigmoid":
        return F.logsigmoid(logits), None
    if activation == "softplus":
        return torch.log(F.softplus(logits)), None
    positive = logits > 0
    return torch.log(torch.where(positive, logits, 1.0)), positive


def reference(
    projected, kernel, state, spec, mask=None, recurrent_mask=None, matmul=None
):
    """The unit over the sequence as a plain float64 loop (RDA paper section
    5, with the running maximum `m` of the scaled sums of the RWA paper's
    Appendix D, outside differentiation), differentiated by torch; `matmul`
    (default `torch.matmul`) computes `(h_{t-1} r) R`."""
    import torch
    import torch.nn.functional as F

    matmul = matmul or torch.matmul

    units = spec.units
    h, n, d, m = state
    hidden = []
    for t in range(projected.shape[0]):
        h_in = h if recurrent_mask is None else h * recurrent_mask
        u = projected[t, :, :units]
        gates = projected[t, :, units:] + matmul(h_in, kernel)
        g, a = gates[:, :units], gates[:, units : 2 * units]
        log_a, positive = _log_attention(a, spec.attention_activation)
        past = m + F.logsigmoid(gates[:, 2 * units :]) if spec.discount else m
        past = torch.where(d != 0, past, log_a)  # nothing attended yet
        if positive is not None:
            log_a = torch.where(positive, log_a, past)
        m_new = torch.maximum(past, log_a).detach()
        p = torch.exp(past - m_new)
        q = torch.exp(log_a - m_new)
        if positive is not None:
            q = torch.where(positive, q, 0.0)
        n_new = n * p + u * torch.tanh(g) * q
        d_new = d * p + q
        # n / d, and 0 where nothing is attended (d = 0, then n = 0 too),
        # with the derivative of the plain n / d (`weighted_average`).
        average = n_new / (d_new + (1.0 - torch.sign(d_new)))
        h_new = torch.tanh(average) if spec.hidden_activation == "tanh" else average
        new = (h_new, n_new, d_new, m_new)
        if mask is not None:
            new = [torch.where(mask[t], x, old) for x, old in zip(new, (h, n, d, m))]
        h, n, d, m = new
        hidden.append(h)
    return torch.stack(hidden), n, d, m


# -------------------------------------------------------------------- cases


def make_inputs(
    seed,
    batch,
    units,
    time,
    discount,
    zero_state=False,
    masked=False,
    dropout=False,
    scale=1.0,
):
    """Float32-representable inputs, as float64 torch tensors on the CPU."""
    import torch

    rng = np.random.default_rng(seed)
    blocks = 4 if discount else 3
    projected = scale * rng.normal(size=(time, batch, blocks * units))
    kernel = rng.normal(size=(units, (blocks - 1) * units)) / np.sqrt(units)
    if zero_state:
        state = [np.zeros((batch, units))] * 4
    else:
        attended = rng.random((batch, units)) < 0.7
        d0 = np.where(attended, rng.uniform(0.5, 2.0, (batch, units)), 0.0)
        n0 = np.where(attended, rng.normal(size=(batch, units)), 0.0)
        state = [
            np.tanh(rng.normal(size=(batch, units))),
            n0,
            d0,
            rng.normal(size=(batch, units)),
        ]
    mask = recurrent_mask = None
    if masked:
        # Row 0 skips its first steps, row 1 its last ones, row 2 at random.
        mask = rng.random((time, batch, 1)) < 0.7
        mask[: min(2, time), 0] = False
        if batch > 1:
            mask[-min(2, time) :, 1] = False
    if dropout:
        recurrent_mask = (rng.random((batch, units)) < 0.75) / 0.75
    as_torch = [
        None if x is None else torch.tensor(np.float32(x), dtype=torch.float64)
        for x in [projected, kernel, *state, recurrent_mask]
    ]
    mask = None if mask is None else torch.tensor(mask)
    return as_torch[:6], mask, as_torch[6]


def compare(spec, inputs, mask, recurrent_mask, dtype="float32", rtol=2e-5, seed=0):
    """Runs the kernel (in `dtype`) and the float64 reference, with a random
    linear loss of all four results, and compares results and gradients."""
    import torch

    device = _device()
    rng = np.random.default_rng(seed + 1)
    ref_inputs = [x.clone().requires_grad_() for x in inputs]
    expected = reference(
        ref_inputs[0], ref_inputs[1], ref_inputs[2:], spec, mask, recurrent_mask
    )
    weights = [torch.tensor(rng.normal(size=x.shape)) for x in expected]
    expected_grads = torch.autograd.grad(
        sum((x * w).sum() for x, w in zip(expected, weights)), ref_inputs
    )

    torch_dtype = getattr(torch, dtype)
    kernel_inputs = [
        x.to(device, torch_dtype if i < 2 else torch.float32).requires_grad_()
        for i, x in enumerate(inputs)
    ]
    results = _kernel().recurrence(
        kernel_inputs[0],
        kernel_inputs[1],
        kernel_inputs[2:],
        spec,
        mask=None if mask is None else mask.to(device),
        recurrent_mask=None
        if recurrent_mask is None
        else recurrent_mask.to(device, torch.float32),
        interpret=kernels.interpret_mode(),
    )
    grads = torch.autograd.grad(
        sum((x * w.to(device, x.dtype)).sum() for x, w in zip(results, weights)),
        kernel_inputs,
    )
    names = ["hidden", "n", "d", "m"]
    for name, result, want in zip(names, results, expected):
        assert result.dtype == torch.float32, name
        _assert_close(result, want, rtol, f"result {name}")
    names = ["projected", "recurrent_kernel", "h0", "n0", "d0", "m0"]
    for name, grad, want, x in zip(names, grads, expected_grads, kernel_inputs):
        assert grad.dtype == x.dtype, name
        _assert_close(grad, want, rtol, f"gradient of {name}")


def _assert_close(actual, expected, rtol, what):
    actual = actual.detach().cpu().double().numpy()
    expected = expected.detach().numpy()
    assert np.all(np.isfinite(actual)), what
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(
        actual, expected, rtol=rtol, atol=rtol * scale, err_msg=what
    )


# kind, attention, hidden, (batch, units, time), options
CASES = [
    ("rda", "exp", "tanh", (1, 17, 7), {}),
    ("rda", "sigmoid", "linear", (3, 5, 7), dict(masked=True)),
    ("rda", "sigmoid", "tanh", (3, 1, 30), dict(dropout=True)),
    ("rda", "softplus", "linear", (3, 5, 1), {}),
    ("rda", "softplus", "tanh", (3, 5, 7), dict(masked=True, dropout=True)),
    ("rda", "relu", "linear", (3, 5, 7), dict(zero_state=True, masked=True)),
    ("rda", "relu", "tanh", (1, 17, 7), {}),
    ("rwa", "exp", "tanh", (3, 17, 12), dict(masked=True, dropout=True)),
]


@pytest.mark.parametrize(
    "kind,attention,hidden,shape,options",
    CASES,
    ids=["-".join([c[0], c[1], c[2], "x".join(map(str, c[3]))]) for c in CASES],
)
def test_results_and_gradients_equal_the_float64_loop(
    kind, attention, hidden, shape, options
):
    batch, units, time = shape
    spec = RecurrenceSpec(units, kind == "rda", attention, hidden, "float32")
    inputs, mask, recurrent_mask = make_inputs(
        len(CASES), batch, units, time, spec.discount, **options
    )
    compare(spec, inputs, mask, recurrent_mask)


# kind, attention, hidden, units, options: the real widths (issue 81), one
# step of the K loop per 32 units (70: 3 chunks, the last partly masked;
# 250: 8; 257: 9 chunks of `R` padded to 288 rows, in 512-wide tiles).
WIDE_CASES = [
    ("rda", "sigmoid", "linear", 70, dict(masked=True, dropout=True)),
    ("rwa", "exp", "tanh", 70, {}),
    ("rda", "relu", "tanh", 250, dict(masked=True)),
    ("rwa", "softplus", "linear", 250, dict(dropout=True)),
    ("rda", "exp", "tanh", 257, dict(masked=True, dropout=True)),
    ("rwa", "sigmoid", "tanh", 257, {}),
]


@pytest.mark.parametrize(
    "kind,attention,hidden,units,options",
    WIDE_CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}units" for c in WIDE_CASES],
)
def test_real_widths_equal_the_float64_loop(kind, attention, hidden, units, options):
    """At 70, 250 and 257 units the recurrent matmul runs its K loop past
    the first chunk and reads the padded `R`: results and gradients equal
    the float64 loop (two rows, three steps; a sum of `units` float32
    products per gate, so 1e-4)."""
    spec = RecurrenceSpec(units, kind == "rda", attention, hidden, "float32")
    inputs, mask, recurrent_mask = make_inputs(
        units, 2, units, 3, spec.discount, **options
    )
    compare(spec, inputs, mask, recurrent_mask, rtol=1e-4)


def test_the_recurrent_kernel_is_padded_to_aligned_gate_blocks():
    """`R` `[250, 750]` goes to the kernels as `[256, 768]`: each gate block
    zero-padded to 256 rows and columns (1 KB-aligned rows and blocks), the
    values in place; a multiple of 32 units passes through as it is."""
    import torch

    kernel = _kernel()
    config = kernel._launch_config(250)
    assert (config.block_units, config.block_k, config.padded_units) == (256, 32, 256)
    assert kernel._launch_config(257).padded_units == 288
    assert kernel._launch_config(257).block_units == 512
    assert kernel._launch_config(70).padded_units == 96
    assert kernel._launch_config(5).padded_units == 16
    r = torch.arange(250 * 750, dtype=torch.float32).reshape(250, 750)
    padded = kernel._padded_recurrent_kernel(r, 256)
    assert padded.shape == (256, 768) and padded.is_contiguous()
    blocks = padded.reshape(256, 3, 256)
    for gate in range(3):
        torch.testing.assert_close(
            blocks[:250, gate, :250], r[:, gate * 250 : (gate + 1) * 250]
        )
    assert blocks[250:].abs().sum() == 0 and blocks[:, :, 250:].abs().sum() == 0
    same = torch.zeros(64, 128)
    assert kernel._padded_recurrent_kernel(same, 64).data_ptr() == same.data_ptr()


@pytest.mark.parametrize("kind", ["rda", "rwa"])
def test_large_logits_stay_finite_and_exact(kind):
    """Logits of 1e3-1e4: the running maximum keeps every exponent <= 0.
    (The gradient of `m_0` is a difference of terms of the inputs' scale that
    cancel to about 0 in exact arithmetic: 1e-4 of float32 rounding.)"""
    spec = RecurrenceSpec(5, kind == "rda", "exp", "tanh", "float32")
    inputs, mask, _ = make_inputs(3, 3, 5, 7, spec.discount, masked=True, scale=3e3)
    compare(spec, inputs, mask, None, rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_inputs_are_computed_in_float32(dtype):
    """`projected` and `recurrent_kernel` in half precision (mixed precision):
    the kernel computes in float32 from their values, so it equals the float64
    loop on the same values; gradients come back in their dtypes."""
    import torch

    spec = RecurrenceSpec(5, True, "sigmoid", "tanh", "float32")
    inputs, mask, _ = make_inputs(4, 3, 5, 7, True, masked=True)
    # Round the half-precision inputs first, so both sides see one value.
    half = getattr(torch, dtype)
    inputs[:2] = [x.to(half).double() for x in inputs[:2]]
    # Gradients are rounded to the half dtype: 2^-8 relative for bfloat16.
    compare(
        spec,
        inputs,
        mask,
        None,
        dtype=dtype,
        rtol=1e-2 if dtype == "bfloat16" else 2e-3,
    )


def test_equals_the_cells_own_step():
    """The kernel against `RDACell.projected_step` run step by step through
    Keras (the layers' autodiff path), forward and gradients."""
    import keras
    import torch

    import keras_rda

    units, batch, time = 5, 3, 7
    cell = keras_rda.RDACell(
        units, attention_activation="softplus", hidden_activation="tanh"
    )
    cell.build((None, 2))
    spec = RecurrenceSpec(units, True, "softplus", "tanh", "float32")
    inputs, _, _ = make_inputs(5, batch, units, time, True)
    inputs = [x.float().to(_device()) for x in inputs]
    cell.recurrent_kernel.assign(inputs[1])
    recurrent_kernel = cell.recurrent_kernel.value

    def through_cell(projected, h0, n0, d0, m0):
        states, hidden = [h0, n0, d0, m0], []
        for t in range(time):
            _, states = cell.projected_step(projected[t], states)
            hidden.append(states[0])
        return [keras.ops.stack(hidden)] + list(states[1:])

    def gradients(fn):
        x = [inputs[0]] + inputs[2:]
        x = [v.clone().requires_grad_() for v in x]
        results = fn(*x)
        loss = sum((r * (i + 1.0)).sum() for i, r in enumerate(results[:3]))
        grads = torch.autograd.grad(loss, x + [recurrent_kernel])
        return results, grads

    expected, expected_grads = gradients(through_cell)
    results, grads = gradients(
        lambda projected, *state: _kernel().recurrence(
            projected,
            recurrent_kernel,
            state,
            spec,
            interpret=kernels.interpret_mode(),
        )
    )
    for actual, want in zip(
        list(results) + list(grads), expected + list(expected_grads)
    ):
        _assert_close(actual, want.detach().cpu().double(), 1e-5, "cell step")


def test_opcheck_the_op_and_its_backward():
    """`torch.library.opcheck`: schema, autograd registration, fake tensors
    and AOT dispatch (what `torch.compile` relies on) of both ops."""
    import torch

    triton_recurrence = _kernel()
    triton_recurrence._kernels(kernels.interpret_mode())
    spec = RecurrenceSpec(3, True, "sigmoid", "tanh", "float32")
    inputs, mask, recurrent_mask = make_inputs(
        6, 2, 3, 2, True, masked=True, dropout=True
    )
    device = _device()
    inputs = [x.float().to(device).requires_grad_() for x in inputs]
    args = (
        *inputs,
        mask.to(device),
        recurrent_mask.float().to(device),
        True,
        "sigmoid",
        "tanh",
        "float32",
        True,
    )
    torch.library.opcheck(triton_recurrence.rda_recurrence_op, args)
    outputs = triton_recurrence.rda_recurrence_op(*args)
    grads = [torch.ones_like(x) for x in outputs[:4]]
    backward_args = (
        inputs[0].detach(),
        inputs[1].detach(),
        *[x.detach() for x in inputs[3:]],
        mask.to(device),
        recurrent_mask.float().to(device),
        *outputs[4:],
        *grads,
        spec.discount,
        "sigmoid",
        "tanh",
        "float32",
    )
    torch.library.opcheck(
        triton_recurrence.rda_recurrence_backward_op,
        backward_args,
        test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"),
    )


def test_without_a_gradient_it_saves_nothing():
    """Under `torch.no_grad` the forward kernel writes only the results."""
    import torch

    spec = RecurrenceSpec(5, True, "sigmoid", "linear", "float32")
    inputs, _, _ = make_inputs(7, 3, 5, 7, True)
    inputs = [x.float().to(_device()) for x in inputs]
    with torch.no_grad():
        results = _kernel().recurrence(
            inputs[0], inputs[1], inputs[2:], spec, interpret=kernels.interpret_mode()
        )
    expected = reference(
        inputs[0].cpu().double(),
        inputs[1].cpu().double(),
        [x.cpu().double() for x in inputs[2:]],
        spec,
    )
    for actual, want in zip(results, expected):
        _assert_close(actual, want, 2e-5, "no_grad results")


def test_unsupported_reason_names_float64():
    triton_recurrence = _kernel()
    spec = RecurrenceSpec(5, True, "sigmoid", "linear", "float32")
    assert triton_recurrence.unsupported_reason(spec, "float32") is None
    assert triton_recurrence.unsupported_reason(spec, "bfloat16") is None
    assert "float64" in triton_recurrence.unsupported_reason(spec, "float64")
    assert "float64" in triton_recurrence.unsupported_reason(
        spec._replace(acc_dtype="float64"), "float32"
    )


def test_shapes_that_do_not_fit_the_spec_raise_one_value_error():
    import torch

    triton_recurrence = _kernel()
    spec = RecurrenceSpec(5, True, "sigmoid", "linear", "float32")
    state = [torch.zeros(3, 5)] * 4
    kernel = torch.zeros(5, 15)
    with pytest.raises(ValueError, match=r"argument `projected`.*\[time, batch, 20\]"):
        triton_recurrence.recurrence(torch.zeros(7, 3, 16), kernel, state, spec)
    with pytest.raises(ValueError, match=r"argument `recurrent_kernel`.*\(5, 15\)"):
        triton_recurrence.recurrence(torch.zeros(7, 3, 20), kernel[:, :10], state, spec)
    with pytest.raises(ValueError, match=r"argument `initial_state`"):
        triton_recurrence.recurrence(torch.zeros(7, 3, 20), kernel, state[:3], spec)
    with pytest.raises(ValueError, match=r"float64"):
        triton_recurrence.recurrence(
            torch.zeros(7, 3, 20, dtype=torch.float64), kernel, state, spec
        )


def test_sizes_past_int32_offsets_are_refused():
    kernel = _kernel()
    assert kernel.size_reason(1000, 100, 250, 4) is None
    assert kernel.size_reason(None, 100, 250, 4) is None
    reason = kernel.size_reason(2**16, 2**10, 2**7, 4)
    assert "input projections" in reason and "int32" in reason


def test_the_shared_memory_a_block_needs_grows_with_the_padded_units():
    """Two buffers of the recurrent matmul's float32 dot operands (a tile of
    `R`, of `h_{t-1}` and of the recurrent dropout mask) and the product
    `h_{t-1} r`: what Triton allocated for the forward with recurrent
    dropout, sm_80 and sm_90, at 256 padded units (74 KB) and 512 (138 KB).
    `tests/ops/kernels/test_kernel_compile.py` checks it bounds every figure
    of the committed compiler record."""
    kernel = _kernel()
    assert kernel.shared_memory_bytes(250) == 74 * 1024
    assert kernel.shared_memory_bytes(257) == 138 * 1024
    assert kernel.shared_memory_bytes(512) == 138 * 1024


def test_shared_memory_and_size_limits_reach_the_layers_choice(monkeypatch):
    """On a GPU said to be there with a measured recurrence: 257 units do
    not fit an A10's 99 KB per block, 250 do; a sequence past 2**31
    elements falls back under "auto" and is refused under True."""
    monkeypatch.delenv(kernels.INTERPRET_VARIABLE, raising=False)
    monkeypatch.setattr(kernels, "unavailable_reason", lambda: None)
    a10 = kernels.Device("cuda", "NVIDIA A10", (8, 6), 99 * 1024)
    monkeypatch.setattr(kernels, "gpu_device", lambda backend=None: a10)
    monkeypatch.setattr(
        kernels, "MEASURED_FASTER", {("recurrence", "torch", "sm_86"): "a.json"}
    )
    assert kernels.choose(
        "auto", workload=kernels.Workload("recurrence", 100, 1000, 250, 4)
    )
    wide = kernels.Workload("recurrence", 100, 1000, 257, 4)
    assert kernels.choose("auto", workload=wide) is False
    with pytest.raises(ValueError, match="use_kernel=True.*shared memory.*NVIDIA A10"):
        kernels.choose(True, workload=wide)
    long = kernels.Workload("recurrence", 2**10, 2**16, 128, 4)
    assert kernels.choose("auto", workload=long) is False
    with pytest.raises(ValueError, match="use_kernel=True.*int32"):
        kernels.choose(True, workload=long)
