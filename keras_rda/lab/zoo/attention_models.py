"""Zoo entries of Raffel & Ellis (2016): feed-forward attention models
("ffattn", eq. 1, and "ffmean", the unweighted mean of eq. 2), and the RDA
and the LSTM pooled by `FeedForwardAttention` ("rda-attn", "lstm-attn"),
which none of the papers tried.

Padding. The long-term memory problems pad every batch with all-zero steps
to its longest length. `"rda-attn"` and `"lstm-attn"` mask that padding;
`"ffattn"` and `"ffmean"` by default do not (`mask_padding=False`), as the
paper's model does not (section 2.1): the pooled value then has a fixed
denominator, where with the padding masked each marked step's weight scales
with 1 / length, which `tanh`-bounded scores cannot cancel, and the masked
model does not reach 100% (docs/papers/ffa.md).
"""

from keras_rda.lab.zoo.registry import register_model
from keras_rda.lab.zoo.rnn_models import sequence_input

# Section 2.1: "LReLU(x) = max(x, .01 x)" on every layer, D = 100.
LEAKY_SLOPE = 0.01
PAPER_UNITS = 100
PAPER = "Raffel & Ellis 2016, section 2.1"
# The paper reports the best of Adam learning rates {3e-4, 1e-3, 3e-3, 1e-2}.
# Of 3e-3 and 1e-2, on addition and multiplication with T0 <= 1000, 3e-3
# was as fast or faster for attention, and 1e-2 for the unweighted mean
# (docs/papers/ffa.md, Table 1).
ATTENTION_LEARNING_RATE = 3e-3
MEAN_LEARNING_RATE = 1e-2
# The recurrent models with attention (untried in the papers): the RDA
# paper's Adam learning rate and batch size, the attention paper's D.
RECURRENT_SETTINGS = dict(learning_rate=1e-3, batch_size=100, units=PAPER_UNITS)


def _paper_dense(units, name):
    """A Dense layer with the paper's initialisation (N(0, 1/fan_in), b = 0)."""
    import keras

    from keras_rda.layers import FeedForwardAttention

    return keras.layers.Dense(
        units,
        kernel_initializer=FeedForwardAttention.paper_initializer(),
        bias_initializer="zeros",
        name=name,
    )


def _leaky(name):
    import keras

    return keras.layers.LeakyReLU(negative_slope=LEAKY_SLOPE, name=name)


def _paper_head(task, context, units):
    """`s = LReLU(W_cs c + b_cs)`, `y = LReLU(W_sy s + b_sy)` (section 2.1).

    The paper's leaky rectifier on `y` is kept for regression; classification
    tasks get logits.
    """
    s = _leaky("s_activation")(_paper_dense(units, "s")(context))
    y = _paper_dense(task.output_dim, "y")(s)
    if task.output == "regression":
        y = _leaky("y_activation")(y)
    return y


def _check_per_sequence(task):
    if task.per_step:
        raise ValueError(
            "Received an invalid value for argument `task`, expected a task "
            f"with one target per sequence, got the per-step task {task.name!r}"
        )


def _feedforward_model(task, pooling, units, name, mask_padding):
    """`h_t = LReLU(W_xh x_t + b_xh)`, pooled over time by `pooling`."""
    import keras

    _check_per_sequence(task)
    inputs, x = sequence_input(task, mask_padding)
    h = _leaky("h_activation")(_paper_dense(units, "h")(x))
    context = pooling(h)
    return keras.Model(inputs, _paper_head(task, context, units), name=name)


@register_model(
    "ffattn",
    description="Raffel & Ellis feed-forward net + attention (eq. 1), D = 100",
    paper=PAPER,
    learning_rate=ATTENTION_LEARNING_RATE,
    batch_size=100,
    units=PAPER_UNITS,
)
def build_ffattn(task, units=PAPER_UNITS, mask_padding=False):
    """Raffel & Ellis's feed-forward model with attention (10,602 weights).

    `mask_padding=True` masks the zero padding (see the module docstring for
    why the paper's model, and this default, pool over it).
    """
    from keras_rda.layers import FeedForwardAttention

    pooling = FeedForwardAttention(name="attention")
    return _feedforward_model(task, pooling, units, "ffattn", mask_padding)


@register_model(
    "ffmean",
    description="Raffel & Ellis feed-forward net + unweighted mean (eq. 2)",
    paper=PAPER,
    learning_rate=MEAN_LEARNING_RATE,
    batch_size=100,
    units=PAPER_UNITS,
)
def build_ffmean(task, units=PAPER_UNITS, mask_padding=False):
    """Raffel & Ellis's feed-forward model with the mean over time (10,501).

    `mask_padding` as in `build_ffattn`.
    """
    import keras

    pooling = keras.layers.GlobalAveragePooling1D(name="mean")
    return _feedforward_model(task, pooling, units, "ffmean", mask_padding)


def _recurrent_attention_model(task, recurrent_layer, units, name):
    """`recurrent_layer` (with `return_sequences=True`), then attention."""
    import keras

    from keras_rda.layers import FeedForwardAttention

    _check_per_sequence(task)
    inputs, x = sequence_input(task)
    h = recurrent_layer(x)
    context = FeedForwardAttention(name="attention")(h)
    return keras.Model(inputs, _paper_head(task, context, units), name=name)


@register_model(
    "rda-attn",
    description="RDA (return_sequences) pooled by feed-forward attention",
    paper="RDA layer + Raffel & Ellis attention (untried in the papers)",
    **RECURRENT_SETTINGS,
)
def build_rda_attn(task, units=PAPER_UNITS):
    """`RDA(units, return_sequences=True)`, then `FeedForwardAttention`."""
    from keras_rda.layers import RDA

    layer = RDA(units, return_sequences=True, name="rda")
    return _recurrent_attention_model(task, layer, units, name="rda_attn")


@register_model(
    "lstm-attn",
    description="Keras LSTM (return_sequences) pooled by feed-forward attention",
    paper="keras.layers.LSTM + Raffel & Ellis attention (reference for rda-attn)",
    **RECURRENT_SETTINGS,
)
def build_lstm_attn(task, units=PAPER_UNITS):
    """`keras.layers.LSTM(units, return_sequences=True)`, then attention."""
    import keras

    layer = keras.layers.LSTM(units, return_sequences=True, name="lstm")
    return _recurrent_attention_model(task, layer, units, name="lstm_attn")
