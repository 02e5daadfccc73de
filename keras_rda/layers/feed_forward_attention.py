"""Feed-forward attention pooling (Raffel & Ellis, 2016)."""

import keras
from keras import ops

from keras_rda.utils import validation
from keras_rda.utils.initializers import independent


def paper_initializer(seed=None):
    """The paper's weight initialisation (section 2.1).

    Entries of a matrix `W` in `R^{M x N}` are drawn from a Gaussian with mean
    zero and standard deviation `1 / sqrt(N)`, `N` being the fan-in.
    """
    return keras.initializers.VarianceScaling(
        scale=1.0, mode="fan_in", distribution="untruncated_normal", seed=seed
    )


def masked_softmax(scores, mask=None):
    """Softmax over the last axis that ignores masked positions.

    Computed as `exp(e - m) / sum(exp(e - m))` with `m` the row maximum over
    the real positions, so that no term overflows for any finite score.
    Masked positions get exactly 0; the weights of a row sum to 1 over its
    real positions; a row with no real position gets all zeros (not 0/0).

    Args:
        scores: float tensor `[batch, time]`.
        mask: optional boolean tensor `[batch, time]`, True at real steps.

    Returns:
        The weights, `[batch, time]`, in the dtype of `scores`.
    """
    if mask is None:
        return ops.softmax(scores, axis=-1)
    mask = ops.cast(mask, "bool")
    dtype = keras.backend.standardize_dtype(scores.dtype)
    lowest = ops.cast(-6.0e4 if dtype == "float16" else -3.0e38, dtype)
    row_max = ops.max(ops.where(mask, scores, lowest), axis=-1, keepdims=True)
    row_max = ops.stop_gradient(row_max)
    # Masked positions are shifted to exactly 0 (never `lowest - row_max`),
    # real ones to `e - m <= 0`, so `exp` neither overflows nor makes inf.
    shifted = ops.where(mask, scores, row_max) - row_max
    unnormalised = ops.where(mask, ops.exp(shifted), ops.zeros_like(shifted))
    total = ops.sum(unnormalised, axis=-1, keepdims=True)
    # `total >= 1` wherever a row has a real step (its maximum gives exp(0)).
    safe_total = ops.where(total > 0, total, ops.ones_like(total))
    return unnormalised / safe_total


@keras.saving.register_keras_serializable(package="keras_rda")
class FeedForwardAttention(keras.layers.Layer):
    """Feed-forward attention: an adaptive weighted mean over time.

    Implements eq. 1 of Raffel & Ellis: a learnable score `e_t = a(h_t)` per
    step, weights `alpha = softmax_t(e)` and the context vector
    `c = sum_t alpha_t h_t`. With `units=None` the score is the paper's
    `a(h_t) = score_activation(w^T h_t + b)` (section 2.1, tanh); with
    `units=k` it is a one-hidden-layer perceptron
    `a(h_t) = v^T score_activation(W h_t + b)` as in Bahdanau et al.

    The layer pools a whole sequence into one vector, so it can follow any
    layer that emits one vector per step: `keras_rda.RDA(...,
    return_sequences=True)`, `keras.layers.LSTM(..., return_sequences=True)`,
    `Conv1D`, or a `Dense` applied per step (the paper's feed-forward model).
    Memory and time are linear in the sequence length: nothing of shape
    `[batch, time, time]` is formed, and the weighted mean is one batched
    matrix product.

    Masking: masked steps get a weight of exactly 0 and the weights of each
    sequence sum to 1 over its real steps; a sequence with no real step
    pools to zeros. The softmax subtracts the row maximum, so very long
    sequences and very large scores give neither overflow nor NaN.

    Args:
        units: `None` (the paper's single-layer score) or a positive integer,
            the hidden size of a two-layer score network.
        score_activation: activation inside `a` (name or callable); `"tanh"`
            as in the paper, `None` for a linear score.
        return_attention_scores: if True, the layer returns
            `(context, weights)`; the weights `alpha` are `[batch, time]`.
        use_bias: whether the score has the bias `b`.
        kernel_initializer: initializer of `w` (and of `v` when `units` is
            set). Defaults to the paper's Gaussian with standard deviation
            `1 / sqrt(fan_in)`.
        bias_initializer: initializer of `b` (zeros, as in the paper).
        kernel_regularizer: regularizer of the kernels, as in
            `keras.layers.Dense`.
        bias_regularizer: regularizer of `b`.
        kernel_constraint: constraint of the kernels.
        bias_constraint: constraint of `b`.
        **kwargs: base `keras.layers.Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `[batch, time, features]`, the state sequence `h`.
        mask: optional boolean `[batch, time]`, True at real steps; Keras
            passes it automatically after a `Masking` or `Embedding(
            mask_zero=True)` layer or a recurrent layer fed a mask.

    Returns:
        The context `c`, `[batch, features]`, and, when
        `return_attention_scores=True`, also the weights `[batch, time]`.

    Numerics:
        The softmax is computed in float32 from scores shifted by their
        maximum over the real steps, so no finite score overflows it. A NaN
        or inf in one sample's input makes that sample's context (and
        weights) non-finite, not the other samples'. A masked step's input
        is not read, so a NaN there changes nothing.

    Example:

    ```python
    inputs = keras.Input((None, 2))
    h = keras.layers.Dense(100, activation="relu")(inputs)
    c = keras_rda.FeedForwardAttention()(h)
    outputs = keras.layers.Dense(1)(c)
    model = keras.Model(inputs, outputs)
    ```

    Reference:
        Colin Raffel and Daniel P. W. Ellis, "Feed-Forward Networks with
        Attention Can Solve Some Long-Term Memory Problems", ICLR 2016
        workshop, arXiv:1512.08756; eq. 1 and section 2.1.
    """

    #: The paper's weight initialisation (section 2.1), for the layers
    #: around the attention: `FeedForwardAttention.paper_initializer(seed)`.
    paper_initializer = staticmethod(paper_initializer)

    def __init__(
        self,
        units=None,
        score_activation="tanh",
        return_attention_scores=False,
        use_bias=True,
        kernel_initializer=None,
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        units = validation.positive_int("units", units, allow_none=True)
        return_attention_scores = validation.boolean(
            "return_attention_scores", return_attention_scores
        )
        try:
            self.score_activation = keras.activations.get(score_activation)
        except (ValueError, TypeError):
            raise ValueError(
                "Received an invalid value for argument `score_activation`, "
                "expected the name of a Keras activation, a callable or None, "
                f"got {score_activation!r}"
            ) from None
        self.units = units
        self.return_attention_scores = return_attention_scores
        self.use_bias = validation.boolean("use_bias", use_bias)
        self.kernel_initializer = validation.initializer(
            "kernel_initializer", kernel_initializer or paper_initializer()
        )
        self.bias_initializer = validation.initializer(
            "bias_initializer", bias_initializer
        )
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.bias_regularizer = keras.regularizers.get(bias_regularizer)
        self.kernel_constraint = keras.constraints.get(kernel_constraint)
        self.bias_constraint = keras.constraints.get(bias_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(
                "Received an invalid value for argument `inputs`, expected a "
                "tensor of rank 3 [batch, time, features], got shape "
                f"{tuple(input_shape)}"
            )
        features = input_shape[-1]
        if features is None:
            raise ValueError(
                "Received an invalid value for argument `inputs`, expected a "
                "known last dimension (features), got shape "
                f"{tuple(input_shape)}"
            )
        # A later call on another feature size gets Keras's own message.
        self.input_spec = keras.layers.InputSpec(ndim=3, axes={-1: int(features)})
        hidden = self.units or 1
        self.kernel = self.add_weight(
            name="kernel",
            shape=(features, hidden),
            initializer=independent(self.kernel_initializer, "kernel"),
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(hidden,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.score_vector = None
        if self.units is not None:
            # No bias after `v`: the softmax is shift-invariant.
            self.score_vector = self.add_weight(
                name="score_vector",
                shape=(self.units, 1),
                initializer=independent(self.kernel_initializer, "score_vector"),
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
            )

    def scores(self, inputs):
        """The scores `e_t = a(h_t)`, `[batch, time]`."""
        hidden = ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            hidden = hidden + self.bias
        hidden = self.score_activation(hidden)
        if self.score_vector is not None:
            hidden = ops.matmul(hidden, self.score_vector)
        return ops.squeeze(hidden, axis=-1)

    def call(self, inputs, mask=None):
        if mask is not None:
            validation.sequence_mask(mask, inputs)
            # A masked step gets weight 0, and its input is not read: a NaN
            # or inf there would make `0 * NaN` in the weighted sum.
            mask = ops.cast(mask, "bool")
            inputs = ops.where(
                ops.expand_dims(mask, -1), inputs, ops.zeros_like(inputs)
            )
        scores = ops.cast(self.scores(inputs), "float32")
        weights = ops.cast(masked_softmax(scores, mask), inputs.dtype)
        context = ops.einsum("bt,btf->bf", weights, inputs)
        if self.return_attention_scores:
            return context, weights
        return context

    def compute_mask(self, inputs, mask=None):
        # The output has no time axis left to mask.
        if self.return_attention_scores:
            return None, None
        return None

    def compute_output_shape(self, input_shape):
        context_shape = (input_shape[0], input_shape[2])
        if self.return_attention_scores:
            return context_shape, (input_shape[0], input_shape[1])
        return context_shape

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "score_activation": keras.activations.serialize(self.score_activation),
                "return_attention_scores": self.return_attention_scores,
                "use_bias": self.use_bias,
                "kernel_initializer": keras.initializers.serialize(
                    self.kernel_initializer
                ),
                "bias_initializer": keras.initializers.serialize(self.bias_initializer),
                "kernel_regularizer": keras.regularizers.serialize(
                    self.kernel_regularizer
                ),
                "bias_regularizer": keras.regularizers.serialize(self.bias_regularizer),
                "kernel_constraint": keras.constraints.serialize(
                    self.kernel_constraint
                ),
                "bias_constraint": keras.constraints.serialize(self.bias_constraint),
            }
        )
        return config
