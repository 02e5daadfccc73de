"""keras_rda.ops.addressing against NumPy references and DNC invariants."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_rda.ops import addressing as _addressing
from tests.layers.gradients import value_and_grad
from tests.memory import numpy_reference as ref


class _Addressing:
    """`keras_rda.ops.addressing`, its NumPy arguments passed as tensors.

    The cells always pass tensors. PyTorch, unlike TensorFlow and JAX, does
    not mix an ndarray into tensor arithmetic, so the tests convert first.
    """

    def __getattr__(self, name):
        function = getattr(_addressing, name)

        def call(*args, **kwargs):
            args = [
                ops.convert_to_tensor(a) if isinstance(a, np.ndarray) else a
                for a in args
            ]
            return function(*args, **kwargs)

        return call


addressing = _Addressing()


def _np(x):
    return keras.ops.convert_to_numpy(x)


def _dist(rng, *shape):
    x = rng.random(shape)
    return x / x.sum(axis=-1, keepdims=True)


def test_content_weights_match_numpy(rng):
    memory = rng.normal(size=(2, 5, 4)).astype("float32")
    memory[0, 2] = 0.0  # a zero slot
    keys = rng.normal(size=(2, 3, 4)).astype("float32")
    keys[1, 0] = 0.0  # a zero key
    beta = (1 + rng.random((2, 3)) * 5).astype("float32")
    got = _np(addressing.content_weights(memory, keys, beta))
    for b in range(2):
        for h in range(3):
            want = ref.content(memory[b], keys[b, h], beta[b, h])
            np.testing.assert_allclose(got[b, h], want, rtol=1e-5, atol=1e-6)


def test_cosine_similarity_of_zero_vectors_is_zero_with_finite_gradient():
    memory = np.zeros((1, 3, 4), np.float32)
    keys = np.zeros((1, 2, 4), np.float32)
    sim = addressing.cosine_similarity(
        keras.ops.convert_to_tensor(memory), keras.ops.convert_to_tensor(keys)
    )
    np.testing.assert_array_equal(_np(sim), 0.0)
    total, grads = value_and_grad(
        lambda m, k: keras.ops.sum(addressing.cosine_similarity(m, k)), memory, keys
    )
    assert total == 0.0
    assert [g.shape for g in grads] == [memory.shape, keys.shape]
    for g in grads:
        assert np.all(np.isfinite(g))


def test_product_over_heads_equals_numpy_product_with_exact_gradient(rng):
    x = rng.uniform(0.1, 1.0, size=(2, 3, 4)).astype("float32")
    x[0, 1, 2] = 0.0  # a zero factor: the others' gradient is 0 there
    got = _np(addressing.product_over_heads(ops.convert_to_tensor(x)))
    np.testing.assert_allclose(got, np.prod(x, axis=1), rtol=1e-6)
    total, (grad,) = value_and_grad(
        lambda v: ops.sum(addressing.product_over_heads(v)), x
    )
    assert total == pytest.approx(np.prod(x, axis=1).sum(), rel=1e-6)
    # d/dx_h prod_k x_k = prod_{k != h} x_k.
    want = np.stack([np.prod(np.delete(x, h, axis=1), axis=1) for h in range(3)], 1)
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    assert grad[0, 1, 2] != 0.0 and grad[0, 0, 2] == 0.0


def test_allocation_matches_numpy_and_picks_least_used(rng):
    usage = rng.random((6, 5)).astype("float32")
    usage[0] = [1.0, 1.0, 0.0, 1.0, 1.0]
    usage[1] = [0.0, 0.0, 0.0, 0.0, 0.0]  # ties
    got = _np(addressing.allocation_weights(usage))
    for b in range(6):
        np.testing.assert_allclose(got[b], ref.allocation(usage[b]), atol=1e-5)
        if b != 1:
            assert np.argmax(got[b]) == np.argmin(usage[b])
    assert np.all(got >= 0) and np.all(got.sum(-1) <= 1 + 1e-5)
    np.testing.assert_allclose(got[0, 2], 1.0, atol=1e-5)


def test_usage_update_matches_formula_and_stays_in_unit_interval(rng):
    prev_usage = rng.random((3, 5))
    prev_write = _dist(rng, 3, 1, 5)
    free = rng.random((3, 2))
    prev_read = _dist(rng, 3, 2, 5)
    got = _np(addressing.update_usage(prev_usage, prev_write, free, prev_read))
    psi = (1 - free[:, 0, None] * prev_read[:, 0]) * (
        1 - free[:, 1, None] * prev_read[:, 1]
    )
    w = prev_write[:, 0]
    np.testing.assert_allclose(got, (prev_usage + w - prev_usage * w) * psi, rtol=1e-6)
    assert np.all((got >= 0) & (got <= 1))


def test_link_and_precedence_match_numpy_and_keep_invariants(rng):
    n = 5
    link = np.zeros((2, 1, n, n))
    precedence = np.zeros((2, 1, n))
    for _ in range(8):
        w = _dist(rng, 2, 1, n) * rng.random((2, 1, 1))  # sums to <= 1
        new_link = _np(addressing.update_link(link, precedence, w))
        new_prec = _np(addressing.update_precedence(precedence, w))
        for b in range(2):
            np.testing.assert_allclose(
                new_link[b, 0],
                ref.link_update(link[b, 0], precedence[b, 0], w[b, 0]),
                atol=1e-6,
            )
            np.testing.assert_allclose(
                new_prec[b, 0],
                ref.precedence_update(precedence[b, 0], w[b, 0]),
                atol=1e-6,
            )
        link, precedence = new_link, new_prec
        np.testing.assert_array_equal(np.diagonal(link, axis1=-2, axis2=-1), 0.0)
        assert np.all(link >= -1e-6)
        assert np.all(link.sum(-1) <= 1 + 1e-5) and np.all(link.sum(-2) <= 1 + 1e-5)
        assert np.all(precedence.sum(-1) <= 1 + 1e-5)


def test_directional_read_weights(rng):
    link = rng.random((1, 2, 4, 4))
    read = _dist(rng, 1, 3, 4)
    fwd = _np(addressing.directional_read_weights(link, read, True))
    bwd = _np(addressing.directional_read_weights(link, read, False))
    for h in range(2):
        for r in range(3):
            np.testing.assert_allclose(fwd[0, r, h], link[0, h] @ read[0, r], rtol=1e-6)
            np.testing.assert_allclose(
                bwd[0, r, h], link[0, h].T @ read[0, r], rtol=1e-6
            )


def test_ntm_shift_and_sharpen_match_numpy(rng):
    w = _dist(rng, 2, 3, 6)
    s = _dist(rng, 2, 3, 5)  # shift range 2
    got = _np(addressing.circular_shift(w, s))
    gamma = 1 + 3 * rng.random((2, 3))
    sharp = _np(addressing.sharpen(got, gamma))
    for b in range(2):
        for h in range(3):
            want = ref.ntm_shift(w[b, h], s[b, h])
            np.testing.assert_allclose(got[b, h], want, rtol=1e-6)
            np.testing.assert_allclose(
                sharp[b, h], ref.ntm_sharpen(want, gamma[b, h]), rtol=1e-5
            )
    np.testing.assert_allclose(sharp.sum(-1), 1.0, atol=1e-4)


def test_shift_moves_weight_forward():
    w = np.array([[[1.0, 0.0, 0.0, 0.0]]])
    s = np.array([[[0.0, 0.0, 1.0]]])  # shift +1
    np.testing.assert_allclose(_np(addressing.circular_shift(w, s))[0, 0], [0, 1, 0, 0])


@pytest.mark.parametrize("heads", [1, 2])
def test_erase_and_write(rng, heads):
    memory = rng.normal(size=(1, 4, 3))
    w = _dist(rng, 1, heads, 4)
    e = rng.random((1, heads, 3))
    v = rng.normal(size=(1, heads, 3))
    got = _np(addressing.erase_and_write(memory, w, e, v))
    keep = np.ones((4, 3))
    for h in range(heads):
        keep *= 1 - np.outer(w[0, h], e[0, h])
    want = memory[0] * keep + sum(np.outer(w[0, h], v[0, h]) for h in range(heads))
    np.testing.assert_allclose(got[0], want, rtol=1e-6)


def test_two_write_heads_allocate_different_slots():
    usage = np.array([[0.9, 0.0, 0.5, 0.1]], "float32")
    gates = np.ones((1, 2), "float32")
    a = _np(addressing.write_allocation_weights(usage, gates, 2))
    assert np.argmax(a[0, 0]) == 1 and np.argmax(a[0, 1]) == 3
    assert ops.shape(a) == (1, 2, 4)


def _deepmind_allocation(usage):
    """DeepMind's `dnc` `Freeness._allocation`, in float32 like theirs.

    The free list is `top_k(1 - usage)`: slots by descending non-usage, where
    float32 rounds many tiny usages to the same non-usage and `top_k` puts the
    lower index first among ties.
    """
    usage = np.float32(ref.EPS) + np.float32(1 - ref.EPS) * usage
    nonusage = np.float32(1) - usage
    order = np.argsort(-nonusage, axis=-1, kind="stable")
    sorted_nonusage = np.take_along_axis(nonusage, order, -1)
    sorted_usage = np.float32(1) - sorted_nonusage
    shifted = np.concatenate(
        [np.ones_like(sorted_usage[:, :1]), sorted_usage[:, :-1]], axis=1
    )
    sorted_allocation = sorted_nonusage * np.cumprod(shifted, axis=1)
    allocation = np.empty_like(sorted_allocation)
    np.put_along_axis(allocation, order, sorted_allocation, -1)
    return allocation


@pytest.mark.parametrize("write_gate", [1.0, 0.7])
def test_write_heads_at_the_zero_state_allocate_as_deepmind_does(write_gate):
    # DeepMind's MemoryAccess test case: the zero state, several write heads.
    # After the first head, the unwritten slots hold usages of 1e-6 and
    # below, which float32 cannot tell apart in `1 - usage`; the free list
    # must order them as `top_k(1 - usage)` does (ties: the lower index).
    usage = np.zeros((2, 6), "float32")
    gates = np.full((2, 3), write_gate, "float32")
    got = _np(addressing.write_allocation_weights(usage, gates, 3))
    want = []
    for head in range(3):
        allocation = _deepmind_allocation(usage)
        want.append(allocation)
        usage = usage + (1 - usage) * gates[:, head : head + 1] * allocation
    want = np.stack(want, axis=1)
    np.testing.assert_array_equal(got.argmax(-1), want.argmax(-1))
    np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("builtin", [False, True])
def test_exclusive_cumprod_matches_numpy_in_both_forms(rng, builtin):
    x = rng.random((3, 7)).astype("float32")
    x[1, 2] = 0.0
    want = np.concatenate([np.ones((3, 1)), np.cumprod(x[:, :-1], axis=1)], axis=1)
    got = _np(addressing.exclusive_cumprod(x, builtin_forms=builtin))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_allocation_in_builtin_forms_matches_numpy(rng):
    usage = rng.random((4, 16)).astype("float32")
    usage[1] = 0.0  # ties
    got = _np(addressing.allocation_weights(usage, builtin_forms=True))
    for b in range(4):
        np.testing.assert_allclose(got[b], ref.allocation(usage[b]), atol=1e-6)


@pytest.mark.parametrize("shift", [-3, -1, 0, 1, 2, 3])
def test_a_one_hot_shift_is_numpys_roll(rng, shift):
    # Shift range 3 over 4 slots: offsets beyond the memory wrap around.
    x = rng.random((2, 3, 4)).astype("float32")
    s = np.zeros((2, 3, 7), "float32")
    s[..., shift + 3] = 1.0
    np.testing.assert_array_equal(
        _np(addressing.circular_shift(x, s)), np.roll(x, shift, axis=-1)
    )


@pytest.mark.tensorflow_only
def test_shift_with_an_unknown_memory_size_matches_the_static_one(rng):
    import tensorflow as tf

    w = _dist(rng, 2, 3, 6).astype("float32")
    s = _dist(rng, 2, 3, 5).astype("float32")
    dynamic = tf.function(
        addressing.circular_shift,
        input_signature=[
            tf.TensorSpec([None, None, None], tf.float32),
            tf.TensorSpec([None, None, 5], tf.float32),
        ],
    )
    np.testing.assert_allclose(
        _np(dynamic(w, s)), _np(addressing.circular_shift(w, s)), rtol=1e-6
    )
