"""Independent NumPy implementations of DNC / NTM memory access.

Written from the papers with explicit loops where that is clearer (Graves et
al. 2016 Methods; Graves et al. 2014 section 3.3); they import nothing from
keras_rda. Shapes: one batch element at a time unless noted.
"""

import numpy as np

from tests.helpers import sigmoid
from tests.helpers import softmax
from tests.helpers import softplus

EPS = 1e-6


def cosine(u, v):
    nu = np.sqrt(np.dot(u, u) + EPS)
    nv = np.sqrt(np.dot(v, v) + EPS)
    return np.dot(u, v) / (nu * nv + EPS)


def content(memory, key, beta):
    """memory [N, W], key [W], beta scalar -> [N]."""
    sims = np.array([cosine(key, row) for row in memory])
    return softmax(beta * sims)


def allocation(usage):
    """Graves et al. 2016: a[phi_j] = (1 - u[phi_j]) prod_{i<j} u[phi_i]."""
    usage = EPS + (1 - EPS) * usage
    # The free list by non-usage, as DeepMind's top_k(1 - usage): ties (in
    # the array's dtype) to the lower index.
    order = np.argsort(usage - 1, kind="stable")
    a = np.zeros_like(usage)
    prod = 1.0
    for j in order:
        a[j] = (1 - usage[j]) * prod
        prod *= usage[j]
    return a


def link_update(link, precedence, w):
    n = len(w)
    new = np.zeros_like(link)
    for i in range(n):
        for j in range(n):
            if i != j:
                new[i, j] = (1 - w[i] - w[j]) * link[i, j] + w[i] * precedence[j]
    return new


def precedence_update(precedence, w):
    return (1 - w.sum()) * precedence + w


def dnc_access(xi, state, R, W, Hw=1):
    """One DNC memory access for one batch element, Hw = 1 write head.

    xi: raw interface vector; state: dict of memory [N, W], usage [N],
    link [N, N], precedence [N], read_weights [R, N], write_weights [N].
    Interface layout: read keys, read strengths, write key, write strength,
    erase, write vector, free gates, allocation gate, write gate, read modes
    (backward, forward, content).
    """
    assert Hw == 1
    i = 0

    def take(n):
        nonlocal i
        out = xi[i : i + n]
        i += n
        return out

    read_keys = take(R * W).reshape(R, W)
    read_beta = 1 + softplus(take(R))
    write_key = take(W)
    write_beta = 1 + softplus(take(1))[0]
    erase = sigmoid(take(W))
    write_vec = take(W)
    free = sigmoid(take(R))
    g_alloc = sigmoid(take(1))[0]
    g_write = sigmoid(take(1))[0]
    modes = softmax(take(R * 3).reshape(R, 3))

    M = state["memory"]
    prev_rw = state["read_weights"]
    psi = np.ones(M.shape[0])
    for r in range(R):
        psi *= 1 - free[r] * prev_rw[r]
    u_prev, w_prev = state["usage"], state["write_weights"]
    usage = (u_prev + w_prev - u_prev * w_prev) * psi
    a = allocation(usage)
    c_w = content(M, write_key, write_beta)
    w = g_write * (g_alloc * a + (1 - g_alloc) * c_w)
    M = M * (1 - np.outer(w, erase)) + np.outer(w, write_vec)
    link = link_update(state["link"], state["precedence"], w)
    precedence = precedence_update(state["precedence"], w)
    read_weights = np.zeros_like(prev_rw)
    for r in range(R):
        f = link @ prev_rw[r]
        b = link.T @ prev_rw[r]
        c = content(M, read_keys[r], read_beta[r])
        read_weights[r] = modes[r, 0] * b + modes[r, 1] * f + modes[r, 2] * c
    reads = read_weights @ M
    return {
        "memory": M,
        "usage": usage,
        "link": link,
        "precedence": precedence,
        "read_weights": read_weights,
        "write_weights": w,
    }, reads


def ntm_shift(w, s):
    """NTM eq. 8: w~[i] = sum_j w[j] s[(i - j) mod N], s over shifts -S..S."""
    n = len(w)
    S = (len(s) - 1) // 2
    out = np.zeros(n)
    for i in range(n):
        for j in range(n):
            d = (i - j) % n
            for k, shift in enumerate(range(-S, S + 1)):
                if shift % n == d:
                    out[i] += w[j] * s[k]
    return out


def ntm_sharpen(w, gamma):
    p = (w + EPS) ** gamma
    return p / p.sum()


def ntm_address(M, params, prev_w, W, S):
    key = params[:W]
    beta = softplus(params[W])
    g = sigmoid(params[W + 1])
    s = softmax(params[W + 2 : W + 2 + 2 * S + 1])
    gamma = 1 + softplus(params[W + 2 + 2 * S + 1])
    wc = content(M, key, beta)
    wg = g * wc + (1 - g) * prev_w
    return ntm_sharpen(ntm_shift(wg, s), gamma)


def ntm_access(xi, state, R, W, S=1):
    """One NTM access: write head first, then R read heads on the new memory.

    Interface layout: (R + 1) heads of [key W, beta, g, shifts 2S+1, gamma]
    (write head first), then erase [W], add [W].
    """
    hs = W + 3 + 2 * S + 1
    heads = xi[: (R + 1) * hs].reshape(R + 1, hs)
    erase = sigmoid(xi[(R + 1) * hs : (R + 1) * hs + W])
    add = xi[(R + 1) * hs + W :]
    M = state["memory"]
    ww = ntm_address(M, heads[0], state["write_weights"][0], W, S)
    M = M * (1 - np.outer(ww, erase)) + np.outer(ww, add)
    rw = np.stack(
        [ntm_address(M, heads[1 + r], state["read_weights"][r], W, S) for r in range(R)]
    )
    return {"memory": M, "read_weights": rw, "write_weights": ww[None]}, rw @ M


def cache_attention(cache, h, r, Wq, Uk, Vr, v):
    """UW paper eq. 9-10 for one batch element: cache [L, H]."""
    scores = np.array([np.tanh(h @ Wq + d @ Uk + r @ Vr) @ v for d in cache])
    alpha = softmax(scores.reshape(-1))
    return alpha @ cache
