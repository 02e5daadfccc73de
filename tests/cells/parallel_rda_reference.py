"""Independent NumPy float64 implementation of the parallel RDA's equations.

The RDA paper's section 5 with gates that read only `x_t`, written in the
plain (unscaled) form, one step after the other, sharing nothing with the
package's scaled numerics or its scan:

    u = W_u x + b_u,  g = W_g x + b_g,  z = u tanh(g)
    a = f_a(W_a x + b_a),  gamma = sigmoid(W_gamma x + b_gamma)
    n = n gamma + z a,  d = d gamma + a,  h = f_h(n / d),  o = f_o(h)

A masked step leaves `(n, d)` alone and repeats the previous output (zeros
before the first real step), as `keras.layers.RNN` does.
"""

import numpy as np

GATES = ("u", "g", "a", "gamma")
F_A = {
    "exp": np.exp,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "relu": lambda x: np.maximum(x, 0.0),
}
F = {"linear": lambda x: x, "tanh": np.tanh}


def random_params(rng, input_dim, units, scale=0.5):
    """`W_<gate>` `[input_dim, units]` and `b_<gate>` `[units]` per gate."""
    params = {}
    for gate in GATES:
        params[f"W_{gate}"] = rng.normal(0, scale, (input_dim, units))
        params[f"b_{gate}"] = rng.normal(0, scale, units)
    return params


def to_keras_weights(params):
    """`[kernel, bias]` in the documented layout (blocks u, g, a, gamma)."""
    kernel = np.concatenate([params[f"W_{g}"] for g in GATES], axis=1)
    bias = np.concatenate([params[f"b_{g}"] for g in GATES])
    return [kernel.astype(np.float32), bias.astype(np.float32)]


def run(params, x, attention="sigmoid", hidden="linear", output="linear", mask=None):
    """The unit over `x` `[batch, time, input_dim]`, in float64.

    Returns:
        `(outputs [batch, time, units], n, d)`, `n`, `d` the plain final sums.
    """
    x = np.asarray(x, np.float64)
    batch, steps, _ = x.shape
    units = params["b_u"].shape[0]
    n = np.zeros((batch, units))
    d = np.zeros((batch, units))
    previous = np.zeros((batch, units))
    outputs = []
    for t in range(steps):
        pre = {g: x[:, t] @ params[f"W_{g}"] + params[f"b_{g}"] for g in GATES}
        z = pre["u"] * np.tanh(pre["g"])
        a = F_A[attention](pre["a"])
        gamma = 1.0 / (1.0 + np.exp(-pre["gamma"]))
        new_n = n * gamma + z * a
        new_d = d * gamma + a
        # Nothing attended yet (ReLU, d = 0): the package's empty average, 0.
        average = np.divide(new_n, new_d, out=np.zeros_like(n), where=new_d > 0)
        o = F[output](F[hidden](average))
        if mask is None:
            n, d, previous = new_n, new_d, o
        else:
            keep = mask[:, t, None]
            n = np.where(keep, new_n, n)
            d = np.where(keep, new_d, d)
            previous = np.where(keep, o, previous)
        outputs.append(previous)
    return np.stack(outputs, axis=1), n, d
