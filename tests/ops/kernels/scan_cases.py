"""Inputs for the ParallelRDA scan kernels' tests (`test_pallas_scan.py`,
`test_triton_scan.py`), as NumPy arrays: both compare a kernel with the
portable `keras_rda.ops.parallel_scan.discounted_average_scan`.

A case's batch rows cycle through three regimes, so that one compiled case
covers several: ordinary weights and discounts; very negative `log a`
(sigmoid weights of about `e^-60`) with `log gamma` near 0; `log a` up to
1e3 (`exp` attention of large logits) with very negative `log gamma`.
"""

import numpy as np

#: (id, batch, time, units, positive, initial state, chunk size). Times are
#: not multiples of the chunk; 17 units span two unit tiles where the tests
#: make the tiles 16 units wide.
CASES = [
    ("b3-t37-u17-all-positive-given-state", 3, 37, 17, None, "given", 8),
    ("b3-t37-u5-per-unit-mask-empty-state", 3, 37, 5, "units", "empty", 8),
    ("b1-t7-u5-per-step-mask-given-state", 1, 7, 5, "steps", "given", 4),
    ("b1-t1-u1-all-positive-empty-state", 1, 1, 1, None, "empty", 4),
]


def make_case(batch, time, units, positive, initial_state, seed=0):
    """The inputs of `discounted_average_scan` and random cotangents.

    Returns:
        `(inputs, cotangents)`: `inputs` is `(features, log_a, log_gamma,
        positive, (n^_0, d^_0, m_0))` (`positive` None or boolean
        `[batch, time, units]` / `[batch, time, 1]`), `cotangents` those of
        `(averages, n^, d^)`, all float32.
    """
    rng = np.random.default_rng(seed)
    shape = (batch, time, units)

    def normal(size):
        return rng.normal(size=size).astype(np.float32)

    features = normal(shape)
    log_a = np.empty(shape, np.float32)
    log_gamma = np.empty(shape, np.float32)
    for row in range(batch):
        regime = row % 3
        if regime == 0:
            log_a[row] = normal(shape[1:])
            log_gamma[row] = -np.abs(normal(shape[1:]))
        elif regime == 1:
            log_a[row] = -60.0 + normal(shape[1:])
            log_gamma[row] = -1e-4 * np.abs(normal(shape[1:]))
        else:
            log_a[row] = rng.uniform(0.0, 1e3, shape[1:])
            log_gamma[row] = -30.0 - 10.0 * np.abs(normal(shape[1:]))
    if positive is None:
        mask = None
    else:
        mask_units = units if positive == "units" else 1
        mask = rng.random((batch, time, mask_units)) < 0.6
    if initial_state == "given":
        state = (
            normal((batch, units)),
            rng.uniform(0.5, 2.0, (batch, units)).astype(np.float32),
            normal((batch, units)),
        )
    else:
        state = (np.zeros((batch, units), np.float32),) * 3
    cotangents = (normal(shape), normal((batch, units)), normal((batch, units)))
    return (features, log_a, log_gamma, mask, state), cotangents


def assert_close(actual, expected, name):
    """float32 agreement, relative to the expected values' size."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(
        actual, expected, rtol=1e-4, atol=2e-5 * scale, err_msg=name
    )


GRADIENT_NAMES = ("features", "log_a", "log_gamma", "n^_0", "d^_0", "m_0")


def assert_gradients_close(actual, expected, initial_state):
    """The gradients of `GRADIENT_NAMES` agree; those of an empty initial
    state (`d^_0 = 0`) are not compared.

    At `d^_0 = 0` the average is discontinuous in the initial state (the
    state is "empty", whatever `n^_0` and `m_0`), and the gradient of
    `n^_0` there differs between the portable methods themselves: the
    kernels give the step-by-step recurrence's, `"chunked"` and
    `"associative"` each their own. Given states (`d^_0 > 0`) are compared,
    `m_0`'s nonzero gradient included.
    """
    names = GRADIENT_NAMES if initial_state == "given" else GRADIENT_NAMES[:3]
    for name, a, e in zip(names, actual, expected):
        assert_close(a, e, f"gradient of {name}")
    if initial_state == "given":
        assert np.any(np.asarray(actual[5]) != 0), "m_0 has no gradient"
