"""Independent NumPy implementation of the RWA and RDA equations.

Written from the papers, in float64 and in the plain (unscaled) form, so that
it shares nothing with the package's numerics:

RWA paper eq. 7:   h_0 = tanh(s0), n_0 = d_0 = 0,
                   u = W_u x + b_u, g = W_g [x, h] + b_g, a = W_a [x, h] + b_a,
                   z = u tanh(g), n += z e^a, d += e^a, h = tanh(n / d)
RDA paper sec. 5:  gamma = sigmoid(W_gamma [x, h] + b_gamma),
                   a = f_a(W_a [x, h] + b_a),
                   n = n gamma + z a, d = d gamma + a, h = f_h(n / d), o = f_o(h)

Weights are given as per-gate matrices over the concatenation [x, h], as in
the papers; `to_keras_weights` lays them out as the package documents
(`kernel` blocks u, g, a, gamma; `recurrent_kernel` blocks g, a, gamma).
"""

import numpy as np

from tests.helpers import sigmoid

F_A = {
    "exp": np.exp,
    "sigmoid": sigmoid,
    "softplus": lambda x: np.log1p(np.exp(x)),
    "relu": lambda x: np.maximum(x, 0.0),
}
F_H = {"linear": lambda x: x, "tanh": np.tanh}


def random_params(rng, input_dim, units, discount, scale=0.5):
    """Per-gate weights: W_u [input_dim, units], W_* [input_dim + units, units]."""
    gates = ["g", "a", "gamma"] if discount else ["g", "a"]
    params = {
        "W_u": rng.normal(0, scale, (input_dim, units)),
        "b_u": rng.normal(0, scale, units),
    }
    for gate in gates:
        params[f"W_{gate}"] = rng.normal(0, scale, (input_dim + units, units))
        params[f"b_{gate}"] = rng.normal(0, scale, units)
    return params


def to_keras_weights(params, input_dim, discount, s0=None):
    """[kernel, recurrent_kernel, bias(, initial_state)] in the package layout."""
    gates = ["g", "a", "gamma"] if discount else ["g", "a"]
    kernel = np.concatenate(
        [params["W_u"]] + [params[f"W_{g}"][:input_dim] for g in gates], axis=1
    )
    recurrent = np.concatenate([params[f"W_{g}"][input_dim:] for g in gates], axis=1)
    bias = np.concatenate([params["b_u"]] + [params[f"b_{g}"] for g in gates])
    weights = [kernel, recurrent, bias]
    if s0 is not None:
        weights.append(s0)
    return [w.astype(np.float32) for w in weights]


def run(
    params,
    x,
    discount,
    attention="exp",
    hidden="tanh",
    output="linear",
    h0=None,
    input_mask=None,
    s0=None,
):
    """Runs the unit over `x` `[batch, time, input_dim]` in float64.

    `s0` `[units]`: a learned initial state, `h_0 = f_h(s0)` (`h0` is then
    not given); it is also the average while nothing has been attended.

    Returns:
        `(outputs [batch, time, units], h, n, d)` with the plain (unscaled)
        final sums `n`, `d`.
    """
    x = np.asarray(x, np.float64)
    batch, steps, _ = x.shape
    units = params["b_u"].shape[0]
    f_a, f_h, f_o = F_A[attention], F_H[hidden], F_H[output]
    empty = np.zeros(units) if s0 is None else np.asarray(s0, np.float64)
    if s0 is not None:
        h0 = f_h(empty)
    h = np.zeros((batch, units)) if h0 is None else np.broadcast_to(h0, (batch, units))
    n = np.zeros((batch, units))
    d = np.zeros((batch, units))
    outputs = []
    for t in range(steps):
        xt = x[:, t] if input_mask is None else x[:, t] * input_mask
        xh = np.concatenate([xt, h], axis=1)
        u = xt @ params["W_u"] + params["b_u"]
        g = xh @ params["W_g"] + params["b_g"]
        a = f_a(xh @ params["W_a"] + params["b_a"])
        z = u * np.tanh(g)
        if discount:
            gamma = 1.0 / (1.0 + np.exp(-(xh @ params["W_gamma"] + params["b_gamma"])))
            n = n * gamma + z * a
            d = d * gamma + a
        else:
            n = n + z * a
            d = d + a
        # Where no step has had attention yet (ReLU: d = 0) the equations give
        # 0/0; the package documents the empty average as s0 (0 unlearned).
        average = np.broadcast_to(empty, n.shape).copy()
        np.divide(n, d, out=average, where=d > 0)
        h = f_h(average)
        outputs.append(f_o(h))
    return np.stack(outputs, axis=1), h, n, d
