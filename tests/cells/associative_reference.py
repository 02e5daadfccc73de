"""Independent NumPy implementations of the associative-memory cells' papers.

Written from the equations (Ba et al. 2016; Zhang & Zhou, WeiNet eq. 2-7 and
Figure 3; Ba, Kiros & Hinton 2016 layer-normalised LSTM; Zilly et al. 2016), with loops
where the paper sums, so that they share nothing with the package's code.
"""

import numpy as np

from tests.helpers import sigmoid


def ln(x, gain=None, bias=None, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    sd = np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)
    y = (x - mu) / sd
    if gain is not None:
        y = y * gain
    if bias is not None:
        y = y + bias
    return y


def fast_weights_step(x, h, A, w, decay, eta, steps, layer_norm, f):
    """One step of Ba et al. (2016), per example loops over the batch."""
    batch, units = h.shape
    A_new = np.zeros_like(A)
    h_new = np.zeros_like(h)
    for b in range(batch):
        A_new[b] = decay * A[b] + eta * np.outer(h[b], h[b])
        base = x[b] @ w["kernel"] + h[b] @ w["recurrent_kernel"] + w["bias"]
        hs = f(base)
        for _ in range(steps):
            z = base + A_new[b] @ hs
            if layer_norm:
                z = ln(z, w["layer_norm_gamma"], w["layer_norm_beta"])
            hs = f(z)
        h_new[b] = hs
    return h_new, A_new


def weinet_memory_weights(w, update):
    """W_A, W_h, W_AH as [K, H, H] from the cell's variables."""
    out = {}
    for term in ("decay", "write", "cross"):
        if update == "row_col":
            col, row = w[f"{term}_col"], w[f"{term}_row"]
            out[term] = np.stack([np.outer(c, r) for c, r in zip(col, row)])
        elif f"{term}_weight" in w:
            out[term] = w[f"{term}_weight"]
    return out


def weinet_step(x, h, e, A, a, w, update, router, layer_norm=True, f_u=None, clip=None):
    """One WeiNet step (eq. 2-7) for a batch; A is [batch, K, H, H]."""
    batch, K = A.shape[0], A.shape[1]
    units = h.shape[1]
    W = weinet_memory_weights(w, update)
    f_u = f_u or (lambda v: v)
    hs, es, As, attn = [], [], [], []
    for b in range(batch):
        # eq. 2
        s = np.concatenate([x[b], e[b], h[b]])
        W_C = np.concatenate([w["kernel"], w["recurrent_kernel"]], axis=0)
        ht = np.tanh(s @ W_C + w["bias"])
        hh = np.outer(ht, ht)
        # eq. 5 / Figure 3
        Ab = np.zeros((K, units, units))
        for k in range(K):
            if update == "gated":
                g = sigmoid(W["decay"][k] * A[b, k] + W["write"][k] * hh)
                new = g * A[b, k] + (1 - g) * hh
            else:
                new = (
                    W["decay"][k] * A[b, k]
                    + W["write"][k] * hh
                    + W["cross"][k] * A[b, k] * hh
                )
            new = f_u(new)
            if clip is not None:
                new = np.clip(new, -clip, clip)
            Ab[k] = new
        # eq. 3-4
        if router:
            g = np.array([ht @ Ab[k] @ ht for k in range(K)])
            z = g + w["router_weight"] * a[b]
            z = np.exp(z - z.max())
            at = z / z.sum()
        else:
            at = np.full(K, 1.0 / K)
        Abar = sum(at[k] * Ab[k] for k in range(K))
        # eq. 6
        m = np.array(
            [sum(ht[i] * Abar[i, j] for i in range(units)) for j in range(units)]
        )
        # eq. 7
        col = Abar.mean(axis=0)
        row = Abar.mean(axis=1)
        r = np.concatenate([e[b], col, row, m, ht])
        z = r @ w["reader_kernel"] + w["reader_bias"]
        if layer_norm:
            z = ln(z, w["reader_layer_norm_gamma"], w["reader_layer_norm_beta"])
        et = np.tanh(z)
        hs.append(ht)
        es.append(et)
        As.append(Ab)
        attn.append(at)
    return np.array(hs), np.array(es), np.array(As), np.array(attn)


def ln_lstm_step(x, h, c, w):
    """Ba, Kiros & Hinton (2016) layer-normalised LSTM, gates i, f, g, o."""
    z = (
        ln(x @ w["kernel"], w["input_layer_norm_gamma"])
        + ln(h @ w["recurrent_kernel"], w["recurrent_layer_norm_gamma"])
        + w["bias"]
    )
    n = h.shape[1]
    i, f, g, o = z[:, :n], z[:, n : 2 * n], z[:, 2 * n : 3 * n], z[:, 3 * n :]
    c_new = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h_new = sigmoid(o) * np.tanh(
        ln(c_new, w["cell_layer_norm_gamma"], w["cell_layer_norm_beta"])
    )
    return h_new, c_new


def rhn_step(x, s, w, depth, layer_norm):
    """Zilly et al. (2016) with coupled gates."""
    n = s.shape[1]
    for layer in range(depth):
        u = s @ w["recurrent_kernel"][layer]
        if layer == 0:
            u = u + x @ w["kernel"]
        uh, ut = u[:, :n], u[:, n:]
        if layer_norm:
            uh = ln(uh, w["layer_norm_gamma"][layer, 0])
            ut = ln(ut, w["layer_norm_gamma"][layer, 1])
        hl = np.tanh(uh + w["bias"][layer, :n])
        tl = sigmoid(ut + w["bias"][layer, n:])
        s = hl * tl + s * (1 - tl)
    return s


def weights_by_name(cell):
    """The cell's variables as NumPy arrays keyed by their short names."""
    return {
        v.name.split("/")[-1]: np.array(v.numpy(), np.float64) for v in cell.weights
    }


def assert_round_trips(model, x, tmp_path, export=True):
    """`.keras` save/load and (optionally) SavedModel export give equal outputs."""
    import keras
    import tensorflow as tf

    expected = np.asarray(model(x))
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(np.asarray(loaded(x)), expected, rtol=1e-5, atol=1e-6)
    from tests.helpers import exports_saved_model

    if export and exports_saved_model():
        export_dir = str(tmp_path / "exported")
        model.export(export_dir, verbose=False)
        restored = tf.saved_model.load(export_dir)
        out = restored.serve(tf.constant(x))
        np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5, atol=1e-6)


def assert_finite_gradients_after_zero_steps(cell, input_dim, zero_steps=200):
    """A run of all-zero input steps (pre-padding, no mask) keeps gradients finite.

    The sequence is `zero_steps` all-zero inputs, then 10 one-hot steps.
    """
    import keras

    from tests.layers.gradients import loss_and_gradients

    inputs = keras.Input((None, input_dim))
    model = keras.Model(inputs, keras.layers.Dense(3)(keras.layers.RNN(cell)(inputs)))
    x = np.zeros((2, zero_steps + 10, input_dim), np.float32)
    hot = np.random.default_rng(0).integers(0, input_dim, (2, 10))
    x[:, zero_steps:] = np.eye(input_dim, dtype=np.float32)[hot]
    _, loss, grads = loss_and_gradients(
        model, x, lambda y: keras.ops.sum(keras.ops.square(y))
    )
    assert np.isfinite(loss)
    assert len(grads) == len(model.trainable_weights) + 1  # and the inputs'
    for weight, grad in zip(model.trainable_weights, grads):
        assert np.isfinite(grad).all(), weight.path
