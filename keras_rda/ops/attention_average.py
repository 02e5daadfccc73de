"""The running (discounted) weighted average shared by the RWA and RDA units.

Both units keep a weighted average of features `z_i` with attention weights
`a_i`. The RDA additionally discounts the past by `gamma_t` at every step
(RDA paper, section 5):

    n_t = n_{t-1} * gamma_t + z_t * a_t
    d_t = d_{t-1} * gamma_t + a_t
    h_t = f_h(n_t / d_t)

The RWA is the special case `gamma_t = 1`, `a_t = exp(.)`, `f_h = tanh`
(RWA paper, eq. 7).

Numerics. Written like this, `exp` attention overflows for logits above ~88
(float32), `d_t` underflows to 0 when the weights or the discount are small
for long, and `n_t / d_t` becomes `inf / inf` or `0 / 0`. Following the RWA
paper's Appendix D, generalised to the discount, the state holds the scaled
sums

    n^_t = n_t * exp(-m_t),  d^_t = d_t * exp(-m_t),

where `m_t` is the running maximum of the log-weights that make up the sums:

    m_t = max(m_{t-1} + log gamma_t, log a_t)
    n^_t = n^_{t-1} * exp(m_{t-1} + log gamma_t - m_t) + z_t * exp(log a_t - m_t)
    d^_t = d^_{t-1} * exp(m_{t-1} + log gamma_t - m_t) + exp(log a_t - m_t)

Every exponent is <= 0, so nothing overflows, and one of the two terms of
`d^_t` has weight exactly `exp(0) = 1`, so `d^_t >= 1` as soon as any step has
received attention: the ratio `n^_t / d^_t = n_t / d_t` is never `0 / 0`.
The attention is taken in the log domain for every `f_a` (`log sigmoid`,
`log softplus` computed stably), so a tiny sigmoid weight does not underflow
either. `d^_t = 0` means "no step attended yet" (the initial state, or a ReLU
attention that has been exactly 0 so far); the average is then 0.

`m_t` only rescales numerator and denominator together, so the output does
not depend on it and it is excluded from differentiation
(`stop_gradient`), as in a stable log-sum-exp.
"""

from keras import ops

from keras_rda.utils import keras_compat

ATTENTION_ACTIVATIONS = ("exp", "sigmoid", "softplus", "relu")
HIDDEN_ACTIVATIONS = ("linear", "tanh")
OUTPUT_ACTIVATIONS = ("linear", "tanh")

# Below this logit, log(softplus(x)) equals x to better than 1e-9 relative.
SOFTPLUS_LINEAR_BELOW = -20.0


def attended(denominator):
    """Where some step has been attended: `d^ > 0`, boolean `[batch, units]`.

    For the scaled denominator (`d^ >= 0` always) this is `sign(d^)` cast to
    a boolean. It is written so because on TensorFlow's CPU kernels (without
    XLA) a float comparison (`Greater`) costs several element-wise
    multiplications, while `sign` costs about one, and the running average
    asks this four times a step.
    """
    return ops.cast(ops.sign(denominator), "bool")


def safe_denominator(denominator):
    """`d^` where it is > 0, else 1: the divisor of `n^ / d^` (`[batch, units]`).

    `d^ + (1 - sign(d^))`: exactly `d^` for every `d^ > 0` and 1 at
    `d^ = 0`, with the derivative 1 of the plain `n / d` everywhere (`sign`
    has none), and without a comparison (see `attended`).
    """
    return denominator + (1.0 - ops.sign(denominator))


def log_attention(logits, activation):
    """Log of the attention weights `a = f_a(logits)`.

    Args:
        logits: `[batch, units]`, the attention pre-activations
            `W_a [x_t, h_{t-1}] + b_a`.
        activation: one of `ATTENTION_ACTIVATIONS` (RDA paper, section 5.1).

    Returns:
        `(log_a, positive)`: `log_a` `[batch, units]` is finite everywhere;
        `positive` is None when `f_a > 0` for every finite input, else a
        boolean `[batch, units]` telling where `a > 0` (ReLU), `log_a` being
        meaningless where it is False.
    """
    if activation == "exp":
        return logits, None
    if activation == "sigmoid":
        return ops.log_sigmoid(logits), None
    if activation == "softplus":
        linear = logits < SOFTPLUS_LINEAR_BELOW
        safe = keras_compat.maximum(logits, SOFTPLUS_LINEAR_BELOW)
        return ops.where(linear, logits, ops.log(ops.softplus(safe))), None
    if activation == "relu":
        positive = logits > 0
        return ops.log(ops.where(positive, logits, ops.ones_like(logits))), positive
    raise ValueError(
        "Received an invalid value for argument `attention_activation`, "
        f"expected one of {ATTENTION_ACTIVATIONS}, got {activation!r}"
    )


def discounted_average_update(
    numerator, denominator, log_scale, features, log_a, log_gamma=None, positive=None
):
    """One step of the scaled running average (see the module docstring).

    Args:
        numerator: `[batch, units]`, `n^_{t-1}`.
        denominator: `[batch, units]`, `d^_{t-1} >= 0`; 0 means empty.
        log_scale: `[batch, units]`, `m_{t-1}`.
        features: `[batch, units]`, `z_t`.
        log_a: `[batch, units]`, `log a_t` from `log_attention`.
        log_gamma: `[batch, units]`, `log gamma_t`, or None for no discount
            (the RWA, `gamma_t = 1`).
        positive: None, or boolean `[batch, units]`: where `a_t > 0`.

    Returns:
        `(numerator, denominator, log_scale)` at step t.
    """
    past_weight, new_weight, new_scale = average_weights(
        denominator, log_scale, log_a, log_gamma, positive
    )
    numerator = numerator * past_weight + features * new_weight
    denominator = denominator * past_weight + new_weight
    return numerator, denominator, new_scale


def average_weights(denominator, log_scale, log_a, log_gamma=None, positive=None):
    """The weights of the past sums and of the new term at step t.

    Args:
        denominator, log_scale, log_a, log_gamma, positive: as in
            `discounted_average_update`.

    Returns:
        `(past_weight, new_weight, new_scale)`, each `[batch, units]`:
        `p_t = exp(m_{t-1} + log gamma_t - m_t)`, `q_t = exp(log a_t - m_t)`
        (0 where `a_t = 0`) and `m_t`, so that `n^_t = n^_{t-1} p_t + z_t q_t`
        and `d^_t = d^_{t-1} p_t + q_t`. `m_t` carries no gradient.
    """
    past = log_scale if log_gamma is None else log_scale + log_gamma
    # With nothing accumulated yet the past does not bound the new maximum.
    past = ops.where(attended(denominator), past, log_a)
    if positive is None:
        new_scale = ops.stop_gradient(keras_compat.maximum(past, log_a))
        # Both exponents are <= 0: new_scale is the larger of the two.
        past_weight = ops.exp(past - new_scale)
        new_weight = ops.exp(log_a - new_scale)
    else:
        current = ops.where(positive, log_a, past)
        new_scale = ops.stop_gradient(keras_compat.maximum(past, current))
        past_weight = ops.exp(past - new_scale)
        # Where a_t = 0, log_a is a placeholder: replace it so that neither
        # the value nor the gradient of the discarded branch overflows. (A
        # `where`, not `minimum`: where a_t > 0, log_a <= new_scale already,
        # and the gradient must be the exponential's, also at the tie
        # log_a = new_scale, where JAX's `minimum` would halve it.)
        safe_log_a = ops.where(positive, log_a, new_scale)
        new_weight = ops.where(
            positive, ops.exp(safe_log_a - new_scale), ops.zeros_like(log_a)
        )
    return past_weight, new_weight, new_scale


def weighted_average(numerator, denominator, empty=None):
    """`n / d`, and `empty` where nothing has been attended yet (`d = 0`).

    The scaled denominator is either exactly 0 (then `n = 0` too) or >= 1
    (see the module docstring). Dividing by `safe_denominator(d)` rather
    than `maximum(d, 1)` keeps the derivative of `n / d` at `d = 1` (which
    the first attended step gives exactly): JAX's `maximum` would split it
    between its two arguments at the tie.

    Args:
        numerator: `[batch, units]`, `n^_t`.
        denominator: `[batch, units]`, `d^_t >= 0`.
        empty: None (the empty average is 0), or `[units]`: the learned
            `s0`, so that `h = f_h(s0)` until something is attended, as
            `h_0 = f_h(s0)` (RWA paper eq. 7) before the first step.
    """
    average = numerator / safe_denominator(denominator)
    if empty is None:
        return average
    return ops.where(attended(denominator), average, ops.cast(empty, average.dtype))


def apply_activation(x, name):
    """`f_h` / `f_o`: "linear" (the identity) or "tanh"."""
    return keras_compat.tanh(x) if name == "tanh" else x


def combine_summaries(
    numerator,
    denominator,
    log_scale,
    later_numerator,
    later_denominator,
    later_log_scale,
    later_log_discount,
):
    """The running average after a prefix A followed by a segment B.

    Used by the parallel RDA (`keras_rda.ParallelRDA`), whose discount does
    not depend on the past, so that segments can be summarised separately
    and joined. A segment B of steps `s..t` is summarised by its total
    log-discount `G_B = log gamma_s + ... + log gamma_t`, the running
    maximum `m_B` of its own log-weights and its scaled sums
    `n^_B`, `d^_B` as if started from an empty state. The unscaled sums
    compose as `n = n_A * exp(G_B) + n_B`, so in the scaled form:

        m  = max(m_A + G_B, m_B)
        n^ = n^_A * exp(m_A + G_B - m) + n^_B * exp(m_B - m)
        d^ = d^_A * exp(m_A + G_B - m) + d^_B * exp(m_B - m)

    Both exponents are <= 0. One step is the segment
    `(n^_B, d^_B, m_B, G_B) = (z_t, 1, log a_t, log gamma_t)`, and then this
    is `discounted_average_update`. The operation is associative when the
    prefix is itself a segment with `G = G_A + G_B`. An empty side
    (`d^ = 0`: the initial state, masked steps, ReLU steps with `a = 0`) is
    the identity, whatever its `m`.

    Args:
        numerator, denominator, log_scale: `[..., units]`, `(n^_A, d^_A, m_A)`.
        later_numerator, later_denominator, later_log_scale: `[..., units]`,
            `(n^_B, d^_B, m_B)`.
        later_log_discount: `[..., units]`, `G_B` (<= 0).

    Returns:
        `(numerator, denominator, log_scale)` after A then B.
    """
    shifted = log_scale + later_log_discount
    past = ops.where(attended(denominator), shifted, later_log_scale)
    current = ops.where(attended(later_denominator), later_log_scale, past)
    new_scale = ops.stop_gradient(keras_compat.maximum(past, current))
    past_weight = ops.exp(past - new_scale)
    later_weight = ops.exp(current - new_scale)
    return (
        numerator * past_weight + later_numerator * later_weight,
        denominator * past_weight + later_denominator * later_weight,
        new_scale,
    )
