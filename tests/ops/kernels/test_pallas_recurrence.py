"""The Pallas recurrence kernel against the portable fused recurrence.

Every case runs `keras_rda.ops.kernels.recurrence` (the Pallas kernels) and
`rda_recurrence.fused_recurrence` (today's path) on the same random
operands and compares the outputs `(hidden, n, d, m)` and the gradients of
a random linear function of all four with respect to `projected`, the
recurrent kernel and the four initial states.

On a CPU the kernels run in Pallas's interpreter; on a GPU the same tests
run the compiled (Triton) kernels:

    KERAS_BACKEND=jax pytest -n 0 tests/ops/kernels/test_pallas_recurrence.py
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from keras_rda.ops import kernels
from keras_rda.ops import rda_recurrence
from keras_rda.ops.kernels import pallas_recurrence

pytestmark = pytest.mark.requires_backend("jax")


@pytest.fixture(autouse=True)
def _interpret_off_gpu(monkeypatch):
    """The kernels compile on a GPU and run interpreted elsewhere."""
    on_gpu = jax.default_backend() == "gpu"
    monkeypatch.setenv(kernels.INTERPRET_VARIABLE, "0" if on_gpu else "1")


def make_operands(
    rng,
    time,
    batch,
    units,
    discount,
    scale=1.0,
    initial=True,
    mask=False,
    recurrent_mask=False,
):
    """Random `(projected, recurrent_kernel, initial_state, mask, r_mask)`."""
    k = 4 if discount else 3
    projected = rng.normal(0.0, scale, (time, batch, k * units))
    kernel = rng.normal(0.0, 0.7, (units, (k - 1) * units))
    if initial:
        # n and d as an average left by earlier steps: d > 0, or exactly 0
        # (nothing attended yet) in one row.
        state = [
            rng.normal(size=(batch, units)),
            rng.normal(size=(batch, units)),
            rng.uniform(0.2, 2.0, (batch, units)),
            rng.normal(size=(batch, units)),
        ]
        state[1][0] = state[2][0] = 0.0
    else:
        state = [np.zeros((batch, units))] * 4
    step_mask = None
    if mask:
        step_mask = np.ones((time, batch, 1), bool)
        step_mask[: time // 3, 0] = False  # leading masked steps
        step_mask[-(time // 3) :, -1] = False  # trailing masked steps
        step_mask[time // 2, batch // 2] = False  # a gap
    r_mask = None
    if recurrent_mask:
        r_mask = jnp.asarray((rng.random((batch, units)) > 0.3) / 0.7, jnp.float32)
    return (
        jnp.asarray(projected, jnp.float32),
        jnp.asarray(kernel, jnp.float32),
        [jnp.asarray(s, jnp.float32) for s in state],
        None if step_mask is None else jnp.asarray(step_mask),
        r_mask,
    )


def run_both(spec, operands, rng, cast=None):
    """Outputs and gradients of both paths: `[(outputs, grads), ...]`.

    The loss is a random linear function of hidden, n, d and m. With `cast`
    (a dtype), `projected` and the recurrent kernel are rounded to it; the
    kernel receives them in that dtype, the portable path in float32 (it
    would round its matmul and `dP` to that dtype, the kernel computes in
    float32).
    """
    projected, kernel, state, mask, r_mask = operands
    time, batch, _ = projected.shape
    shapes = [(time, batch, spec.units)] + [(batch, spec.units)] * 3
    weights = [jnp.asarray(rng.normal(size=s), jnp.float32) for s in shapes]
    results = []
    for fn, dtype in (
        (kernels.recurrence, cast),
        (rda_recurrence.fused_recurrence, None),
    ):

        def loss(projected, kernel, h0, n0, d0, m0, fn=fn, dtype=dtype):
            if cast is not None:
                projected, kernel = projected.astype(cast), kernel.astype(cast)
            if dtype is None and cast is not None:
                projected, kernel = (
                    projected.astype("float32"),
                    kernel.astype("float32"),
                )
            outputs = fn(
                projected,
                kernel,
                [h0, n0, d0, m0],
                spec,
                mask=mask,
                recurrent_mask=r_mask,
            )
            total = sum(
                jnp.sum(o.astype(jnp.float32) * w) for o, w in zip(outputs, weights)
            )
            return total, outputs

        grad_fn = jax.jit(jax.value_and_grad(loss, argnums=range(6), has_aux=True))
        (_, outputs), grads = grad_fn(projected, kernel, *state)
        results.append((outputs, grads))
    return results


def assert_close(actual, expected, rtol=2e-5):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype
    actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    assert np.isfinite(actual).all()
    scale = max(np.abs(expected).max(initial=0.0), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


def assert_same(results, rtol=2e-5):
    (kernel_outputs, kernel_grads), (outputs, grads) = results
    for actual, expected in zip(kernel_outputs, outputs):
        assert_close(actual, expected, rtol)
    for actual, expected in zip(kernel_grads, grads):
        assert_close(actual, expected, rtol)


def make_spec(units, discount=True, attention="exp", hidden="linear"):
    return rda_recurrence.RecurrenceSpec(
        units=units,
        discount=discount,
        attention_activation=attention,
        hidden_activation=hidden,
        acc_dtype="float32",
    )


# (name, time, batch, units, discount, attention, hidden, mask, dropout)
CASES = [
    ("rda-exp-linear", 7, 3, 5, True, "exp", "linear", True, True),
    ("rda-sigmoid-tanh", 40, 1, 17, True, "sigmoid", "tanh", False, False),
    ("rda-softplus-linear", 1, 3, 1, True, "softplus", "linear", False, False),
    ("rda-relu-tanh", 7, 3, 5, True, "relu", "tanh", True, False),
    ("rwa", 7, 3, 17, False, "exp", "tanh", True, True),
]


@pytest.mark.parametrize(
    "time,batch,units,discount,attention,hidden,mask,dropout",
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_outputs_and_gradients_equal_the_portable_path(
    time, batch, units, discount, attention, hidden, mask, dropout
):
    """Forward outputs and every gradient, with given initial states (one
    row starting empty), masks with leading, trailing and inner skipped
    steps, and a recurrent dropout mask."""
    rng = np.random.default_rng(time * 1000 + units * 10 + batch)
    spec = make_spec(units, discount, attention, hidden)
    operands = make_operands(
        rng, time, batch, units, discount, mask=mask, recurrent_mask=dropout
    )
    assert_same(run_both(spec, operands, rng))


# (name, time, batch, units, discount, attention, hidden, mask, dropout): the
# real widths (issue 81): 70 units in two column blocks of 64 (128 padded),
# 250 in four, 257 in eight (512 padded).
WIDE_CASES = [
    ("rda-70", 3, 2, 70, True, "sigmoid", "linear", True, True),
    ("rwa-250", 3, 2, 250, False, "exp", "tanh", True, False),
    pytest.param(
        "rda-257",
        2,
        2,
        257,
        True,
        "sigmoid",
        "tanh",
        False,
        True,
        marks=pytest.mark.slow(reason="about 40 s in Pallas's interpreter"),
    ),
]


@pytest.mark.parametrize(
    "time,batch,units,discount,attention,hidden,mask,dropout",
    [
        pytest.param(*case.values[1:], marks=case.marks)
        if isinstance(case, type(pytest.param()))
        else case[1:]
        for case in WIDE_CASES
    ],
    ids=[getattr(case, "values", case)[0] for case in WIDE_CASES],
)
def test_real_widths_equal_the_portable_path(
    time, batch, units, discount, attention, hidden, mask, dropout
):
    """At 70, 250 and 257 units the recurrent matmul sums over several
    column blocks and the padding is wide: outputs and gradients equal the
    portable path (a sum of `units` float32 products per gate, so 1e-4)."""
    rng = np.random.default_rng(units)
    spec = make_spec(units, discount, attention, hidden)
    operands = make_operands(
        rng, time, batch, units, discount, mask=mask, recurrent_mask=dropout
    )
    # A recurrent kernel of Glorot's scale, so that the gates stay O(1).
    projected, kernel, *rest = operands
    operands = (projected, kernel * np.sqrt(1.0 / units) / 0.7, *rest)
    assert_same(run_both(spec, operands, rng), rtol=1e-4)


def test_several_batch_tiles_and_column_blocks(monkeypatch):
    """Two programs on the grid (batch 20 > one tile of 16) and two column
    blocks of the units (17 units padded to 32, blocks of 16), so that the
    recurrent matmul sums over blocks in both passes."""
    monkeypatch.setattr(pallas_recurrence, "BLOCK_UNITS", 16)
    rng = np.random.default_rng(17)
    spec = make_spec(17, attention="sigmoid", hidden="tanh")
    operands = make_operands(rng, 9, 20, 17, True, mask=True, recurrent_mask=True)
    assert_same(run_both(spec, operands, rng))


def test_large_logits_stay_finite_and_equal_the_portable_path():
    """Attention and discount logits in the thousands: no overflow, the
    same outputs and gradients as the portable path's scaled average."""
    rng = np.random.default_rng(3)
    spec = make_spec(5, attention="exp")
    projected, kernel, state, mask, r_mask = make_operands(
        rng, 40, 3, 5, True, scale=3000.0, mask=True
    )
    # The features keep unit scale; the logits are in the thousands.
    projected = projected.at[..., :5].divide(3000.0)
    results = run_both(spec, (projected, kernel, state, mask, r_mask), rng)
    # The logits themselves round at ~1e-3 in float32, and the two paths
    # sum the recurrent matmul in different orders.
    assert_same(results, rtol=1e-3)


def test_half_precision_projections_compute_in_float32():
    """float16 projections and kernel (the layers' mixed precision, with a
    float32 state): the results equal the float32 computation on the same
    rounded values, and the gradient of `projected` is that one rounded to
    float16 (relative 2^-11)."""
    rng = np.random.default_rng(5)
    spec = make_spec(5, attention="sigmoid")
    operands = make_operands(rng, 7, 3, 5, True, mask=True)
    (outputs, grads), (expected_outputs, expected_grads) = run_both(
        spec, operands, rng, cast="float16"
    )
    for actual, expected in zip(outputs, expected_outputs):
        assert_close(actual, expected)
    for actual, expected in zip(grads, expected_grads):
        assert_close(actual, expected, rtol=1e-3)
    projected, kernel, state = operands[:3]
    half = [projected.astype("float16"), kernel.astype("float16"), state]

    def dtypes(fn):
        """The dtypes of the outputs and of the gradients, traced only."""

        def outputs_and_grads(*args):
            outputs, vjp = jax.vjp(lambda *a: fn(*a, spec), *args)
            return outputs, vjp(outputs)

        shapes = jax.eval_shape(outputs_and_grads, *half)
        return [x.dtype for x in jax.tree.leaves(shapes)]

    assert dtypes(kernels.recurrence) == dtypes(rda_recurrence.fused_recurrence)


def test_forward_without_gradient_equals_the_portable_path():
    """The inference kernel (which saves nothing for the backward pass)."""
    rng = np.random.default_rng(11)
    spec = make_spec(5, attention="softplus", hidden="tanh")
    projected, kernel, state, mask, r_mask = make_operands(
        rng, 7, 3, 5, True, mask=True, recurrent_mask=True
    )
    args = (projected, kernel, state, spec)
    kwargs = dict(mask=mask, recurrent_mask=r_mask)
    for actual, expected in zip(
        kernels.recurrence(*args, **kwargs),
        rda_recurrence.fused_recurrence(*args, **kwargs),
    ):
        assert_close(actual, expected)


def test_unsupported_configurations_are_named():
    spec = make_spec(5)
    assert pallas_recurrence.unsupported_reason(spec, "float32") is None
    assert pallas_recurrence.unsupported_reason(spec, "bfloat16") is None
    assert "float64" in pallas_recurrence.unsupported_reason(spec, "float64")
    spec64 = spec._replace(acc_dtype="float64")
    assert "float64" in pallas_recurrence.unsupported_reason(spec64, "float32")
    with pytest.raises(ValueError, match="float64"):
        pallas_recurrence.recurrence(
            jnp.zeros((2, 1, 20), jnp.float64)
            if jax.config.jax_enable_x64
            else np.zeros((2, 1, 20), np.float64),
            jnp.zeros((5, 15)),
            [jnp.zeros((1, 5))] * 4,
            spec,
        )


def test_a_projection_of_the_wrong_width_is_refused():
    spec = make_spec(5)
    with pytest.raises(ValueError, match="`projected`"):
        pallas_recurrence.recurrence(
            jnp.zeros((2, 1, 15)), jnp.zeros((5, 15)), [jnp.zeros((1, 5))] * 4, spec
        )


@pytest.mark.parametrize(
    "discount,attention", [(True, "relu"), (False, "softplus")], ids=["rda", "rwa"]
)
def test_both_kernels_lower_through_the_triton_backend(
    monkeypatch, discount, attention
):
    """Without a GPU, the forward and backward kernels still lower to
    Triton IR (`lowering_platforms=("cuda",)`), which refuses what the
    interpreter accepts but Triton cannot compile (sizes that are not powers
    of two, concatenations, unsupported primitives)."""
    monkeypatch.setattr(pallas_recurrence, "BLOCK_UNITS", 16)
    rng = np.random.default_rng(23)
    spec = make_spec(17, discount, attention, "tanh")
    projected, kernel, state, mask, r_mask = make_operands(
        rng, 5, 3, 17, discount, mask=True, recurrent_mask=True
    )

    def loss(projected, kernel, *state):
        outputs = pallas_recurrence.recurrence(
            projected.astype("float16"),
            kernel,
            list(state),
            spec,
            mask=mask,
            recurrent_mask=r_mask,
            interpret=False,
        )
        return sum(jnp.sum(o) for o in outputs)

    lowered = (
        jax.jit(jax.grad(loss, argnums=range(6)))
        .trace(projected, kernel, *state)
        .lower(lowering_platforms=("cuda",))
    )
    assert lowered.as_text().count("xla.gpu.triton") == 2
