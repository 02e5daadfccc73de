"""The ParallelRDA scan as Pallas kernels (`keras_rda.ops.kernels.pallas_scan`)
against the portable `keras_rda.ops.parallel_scan.discounted_average_scan`:
the averages, the final state and the gradients of every input.

JAX-backend run only. Without a GPU the kernels run in Pallas's interpreter
(`interpret=True`); with one, the same tests run the compiled kernels:

    KERAS_BACKEND=jax pytest -n 0 tests/ops/kernels/test_pallas_scan.py
"""

import pytest

from keras_rda.ops import parallel_scan
from tests.ops.kernels import scan_cases

pytestmark = pytest.mark.requires_backend("jax")

NAMES = ("averages", "final n^", "final d^", "final m")


def _interpret():
    import jax

    return jax.default_backend() != "gpu"


def _results_and_gradients(scan, inputs, cotangents):
    """`(outputs, gradients)` of `scan` under `jax.jit`, with `jax.vjp` of the
    given cotangents (none on the final `m`, which carries no gradient)."""
    import jax
    import jax.numpy as jnp

    features, log_a, log_gamma, positive, state = inputs
    positive = None if positive is None else jnp.asarray(positive)

    def run(features, log_a, log_gamma, n0, d0, m0):
        averages, (n, d, m) = scan(features, log_a, log_gamma, positive, (n0, d0, m0))
        return averages, n, d, m

    @jax.jit
    def outputs_and_vjp(*args):
        outputs, vjp = jax.vjp(run, *args)
        zero_m = jnp.zeros_like(outputs[3])
        return outputs, vjp((*cotangents, zero_m))

    args = [jnp.asarray(x) for x in (features, log_a, log_gamma, *state)]
    return outputs_and_vjp(*args)


@pytest.mark.parametrize(
    "batch, time, units, positive, initial_state, chunk_size",
    [case[1:] for case in scan_cases.CASES],
    ids=[case[0] for case in scan_cases.CASES],
)
def test_kernel_matches_the_portable_scan(
    monkeypatch, batch, time, units, positive, initial_state, chunk_size
):
    from keras_rda.ops.kernels import pallas_scan

    # Tiles of 16 units: 17 units take two programs, the second mostly padding.
    monkeypatch.setattr(pallas_scan, "BLOCK_UNITS", 16)
    inputs, cotangents = scan_cases.make_case(
        batch, time, units, positive, initial_state
    )

    def kernel(*args):
        return pallas_scan.discounted_average_scan(
            *args, interpret=_interpret(), chunk_size=chunk_size
        )

    expected, expected_grads = _results_and_gradients(
        parallel_scan.discounted_average_scan, inputs, cotangents
    )
    actual, actual_grads = _results_and_gradients(kernel, inputs, cotangents)
    for name, a, e in zip(NAMES, actual, expected):
        scan_cases.assert_close(a, e, name)
    scan_cases.assert_gradients_close(actual_grads, expected_grads, initial_state)


def test_bad_chunk_size_and_mask_shape_raise():
    import jax.numpy as jnp

    from keras_rda.ops.kernels import pallas_scan

    x = jnp.zeros((2, 5, 3))
    state = (jnp.zeros((2, 3)),) * 3
    with pytest.raises(ValueError, match="`chunk_size`.*power of two, got 6"):
        pallas_scan.discounted_average_scan(x, x, x, None, state, chunk_size=6)
    with pytest.raises(ValueError, match=r"`positive`.*got shape \(2, 5, 2\)"):
        pallas_scan.discounted_average_scan(
            x, x, x, jnp.ones((2, 5, 2), bool), state, interpret=True
        )
