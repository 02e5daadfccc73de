"""Zoo entries of the RWA/RDA comparisons: "rda", "rda-exp-tanh", "rwa", "lstm",
"gru", and the parallel RDA's "parallel-rda", "parallel-rda-2".

Every entry is one recurrent layer of `units` units over the task's input
(masked when the task pads its sequences) and a linear head: one output per
sequence, or per step when `task.per_step`; logits for classification.

Settings (RDA paper section 6.1): 250 units, Glorot weights, zero biases
except forget/discount gates at 1, Adam with learning rate 1e-3, batches of
100, gradients clipped to [-1, 1]. The RWA keeps its own paper's settings
(section 3.1): no gradient clipping, learned initial state s0.
"""

import importlib

from keras_rda.lab.zoo.registry import register_model
from keras_rda.utils import validation

RDA_PAPER = "RDA paper (Maginnis & Richemond 2017), section 6.1"
RWA_PAPER = "RWA paper (Ostmeyer & Cowell 2017), section 3.1"
# RDA paper section 6.1 (and the RWA paper's 3.1): Adam at 1e-3, batches of
# 100, 250 units.
PAPER_SETTINGS = dict(learning_rate=1e-3, batch_size=100, units=250)


def layer_class(module, name):
    """A function returning class `name` of `module`, imported when called
    (a zoo entry's `passes_to`: registering the zoo imports no backend)."""

    def load():
        return getattr(importlib.import_module(module), name)

    return load


def rda_layer(units, variant="sigmoid-id", **kwargs):
    """`keras_rda.RDA` of the paper's `variant` (the zoo's "rda" unit)."""
    from keras_rda.layers import RDA

    return RDA(units, variant=variant, **kwargs)


def rda_exp_tanh_layer(units, **kwargs):
    """`keras_rda.RDA` with exponential attention and tanh output."""
    return rda_layer(units, variant="exp-tanh", **kwargs)


def rwa_layer(units, **kwargs):
    """`keras_rda.RWA` (the zoo's "rwa" unit)."""
    from keras_rda.layers import RWA

    return RWA(units, **kwargs)


def lstm_layer(units, **kwargs):
    """Keras LSTM with the RDA paper's section 6.1 settings.

    Forget-gate bias 1 (`unit_forget_bias`) and Xavier/Glorot weights for
    every matrix, the recurrent one included ("Weights are initialized using
    Xavier initialization"), where Keras defaults to an orthogonal
    recurrent matrix.
    """
    import keras

    kwargs.setdefault("recurrent_initializer", "glorot_uniform")
    return keras.layers.LSTM(units, unit_forget_bias=True, **kwargs)


def gru_layer(units, **kwargs):
    """Keras GRU with Glorot recurrent weights (RDA paper, section 6.1)."""
    import keras

    kwargs.setdefault("recurrent_initializer", "glorot_uniform")
    return keras.layers.GRU(units, **kwargs)


def parallel_rda_layer(units, **kwargs):
    """`keras_rda.ParallelRDA` (the zoo's "parallel-rda" unit)."""
    from keras_rda.layers import ParallelRDA

    return ParallelRDA(units, **kwargs)


def sequence_input(task, mask_padding=True):
    """`(inputs, features)`: `keras.Input((None, input_dim))` and what the
    first layer reads, through `Masking(0.0)` for a `task.masked` task
    unless `mask_padding` is False."""
    import keras

    validation.boolean("mask_padding", mask_padding)
    inputs = keras.Input((None, task.input_dim), name="inputs")
    features = inputs
    if mask_padding and task.masked:
        features = keras.layers.Masking(mask_value=0.0, name="padding_mask")(features)
    return inputs, features


def sequence_model(
    task, recurrent_layer, name, head_name="head", learned_initial_states=0
):
    """The uncompiled model `name` a task needs: `recurrent_layer` (which
    returns sequences exactly when `task.per_step`), started from
    `learned_initial_states` trained states (`LearnedInitialState`) where
    that is > 0, then a linear head `head_name` of `task.output_dim`."""
    import keras

    from keras_rda.lab.zoo.learned_initial_state import LearnedInitialState

    inputs, features = sequence_input(task)
    if learned_initial_states:
        recurrent_layer = LearnedInitialState(
            recurrent_layer, learned_initial_states, name=recurrent_layer.name
        )
    features = recurrent_layer(features)
    outputs = keras.layers.Dense(task.output_dim, name=head_name)(features)
    return keras.Model(inputs, outputs, name=name)


@register_model(
    "rda",
    description="RDA-sigmoid-id: sigmoid attention, identity output (the paper's RDA)",
    paper=RDA_PAPER,
    clipvalue=1.0,
    **PAPER_SETTINGS,
    layer=rda_layer,
    passes_to=layer_class("keras_rda.layers", "RDA"),
    fixed=("variant", "return_sequences", "name"),
)
def build_rda(task, units=250, learn_initial_state=None, **kwargs):
    """RDA-sigmoid-id: sigmoid attention, identity output (the paper's RDA).

    The initial state is learned where the task says the paper did
    (`task.learn_initial_state`, classify length), unless given.
    """
    return _rda_model(task, units, "sigmoid-id", "rda", learn_initial_state, kwargs)


@register_model(
    "rda-exp-tanh",
    description="RDA-exp-tanh: exponential attention, tanh output",
    paper=RDA_PAPER,
    clipvalue=1.0,
    **PAPER_SETTINGS,
    layer=rda_exp_tanh_layer,
    passes_to=layer_class("keras_rda.layers", "RDA"),
    fixed=("variant", "return_sequences", "name"),
)
def build_rda_exp_tanh(task, units=250, learn_initial_state=None, **kwargs):
    """RDA-exp-tanh: exponential attention, tanh output."""
    return _rda_model(
        task, units, "exp-tanh", "rda_exp_tanh", learn_initial_state, kwargs
    )


def _learns_initial_state(task, learn_initial_state):
    """`learn_initial_state` as a bool; None means `task.learn_initial_state`."""
    if learn_initial_state is None:
        return bool(task.learn_initial_state)
    return validation.boolean("learn_initial_state", learn_initial_state)


def _variant_arguments(variant, kwargs):
    """The RDA's activation arguments: `{"variant": variant}`, or, where
    `kwargs` sets an activation, the variant's three activations with those
    replaced (e.g. `--model-arg attention_activation=relu` on "rda":
    RDA-relu-id, of the RDA paper's section 6.2)."""
    from keras_rda.cells import RDACell

    names = ("attention_activation", "hidden_activation", "output_activation")
    if not any(name in kwargs for name in names):
        return {"variant": variant}
    # The variant's activations, as the public cell resolves them.
    cell = RDACell(1, variant=variant)
    return {name: kwargs.pop(name, getattr(cell, name)) for name in names}


def _rda_model(task, units, variant, name, learn_initial_state, kwargs):
    """`keras_rda.RDA` of the paper's `variant` (or of the activations
    `kwargs` sets in its place) in the task's model."""
    from keras_rda.layers import RDA

    learn_initial_state = _learns_initial_state(task, learn_initial_state)
    kwargs = dict(kwargs)
    activations = _variant_arguments(variant, kwargs)
    layer = RDA(
        units,
        **activations,
        learn_initial_state=learn_initial_state,
        return_sequences=task.per_step,
        name=name,
        **kwargs,
    )
    return sequence_model(task, layer, name)


@register_model(
    "rwa",
    description="RWA: recurrent weighted average, learned initial state, no clipping",
    paper=RWA_PAPER,
    clipvalue=None,
    **PAPER_SETTINGS,
    layer=rwa_layer,
    passes_to=layer_class("keras_rda.layers", "RWA"),
    fixed=("return_sequences", "name"),
)
def build_rwa(task, units=250, **kwargs):
    """RWA: recurrent weighted average, learned initial state, no clipping."""
    from keras_rda.layers import RWA

    layer = RWA(units, return_sequences=task.per_step, name="rwa", **kwargs)
    return sequence_model(task, layer, "rwa")


@register_model(
    "lstm",
    description="Keras LSTM, forget-gate bias 1, Glorot recurrent weights",
    paper=RDA_PAPER,
    clipvalue=1.0,
    **PAPER_SETTINGS,
    layer=lstm_layer,
    passes_to=layer_class("keras.layers", "LSTM"),
    fixed=("unit_forget_bias", "return_sequences", "name"),
)
def build_lstm(task, units=250, learn_initial_state=None, **kwargs):
    """Keras LSTM, forget-gate bias 1, Glorot recurrent weights.

    `learn_initial_state=True` trains `[h_0, c_0]` (`LearnedInitialState`).
    By default it follows `task.learn_initial_state`, as the RDA's does: the
    RDA paper lets every model of its classify-length comparison learn its
    initial state (section 6.3, Table 2); elsewhere Keras's zero state.
    """
    learn_initial_state = _learns_initial_state(task, learn_initial_state)
    layer = lstm_layer(units, return_sequences=task.per_step, name="lstm", **kwargs)
    return sequence_model(
        task, layer, "lstm", learned_initial_states=2 * learn_initial_state
    )


@register_model(
    "gru",
    description="Keras GRU, Glorot recurrent weights",
    paper=RDA_PAPER,
    clipvalue=1.0,
    **PAPER_SETTINGS,
    layer=gru_layer,
    passes_to=layer_class("keras.layers", "GRU"),
    fixed=("return_sequences", "name"),
)
def build_gru(task, units=250, learn_initial_state=None, **kwargs):
    """Keras GRU, Glorot recurrent weights.

    `learn_initial_state=True` trains `h_0`; by default it follows
    `task.learn_initial_state`, as for `build_lstm`.
    """
    learn_initial_state = _learns_initial_state(task, learn_initial_state)
    layer = gru_layer(units, return_sequences=task.per_step, name="gru", **kwargs)
    return sequence_model(
        task, layer, "gru", learned_initial_states=int(learn_initial_state)
    )


@register_model(
    "parallel-rda",
    description="ParallelRDA: the RDA with gates that read only x_t, one layer",
    paper=RDA_PAPER,
    clipvalue=1.0,
    **PAPER_SETTINGS,
    layer=parallel_rda_layer,
    passes_to=layer_class("keras_rda.layers", "ParallelRDA"),
    fixed=("return_sequences", "name"),
)
def build_parallel_rda(task, units=250, **kwargs):
    """ParallelRDA: the RDA with gates that read only x_t, one layer.

    Same units as `rda`, so fewer weights (no recurrent kernel).
    """
    layer = parallel_rda_layer(
        units, return_sequences=task.per_step, name="parallel_rda", **kwargs
    )
    return sequence_model(task, layer, "parallel_rda")


def matched_parallel_rda_units(units, input_dim, output_dim):
    """Width of each of 2 stacked `ParallelRDA` layers whose model has as
    many weights as the `rda` model with `units` units (no larger).

    `rda`: `4 U (I + 1) + 3 U^2` in the layer, `(U + 1) O` in the head; two
    parallel layers of width `V`: `4 V (I + 1) + 4 V (V + 1) + (V + 1) O`.
    """

    def weights_rda(u):
        return 4 * u * (input_dim + 1) + 3 * u * u + (u + 1) * output_dim

    def weights_parallel(v):
        return 4 * v * (input_dim + 1) + 4 * v * (v + 1) + (v + 1) * output_dim

    target = weights_rda(units)
    width = 1
    while weights_parallel(width + 1) <= target:
        width += 1
    return width


@register_model(
    "parallel-rda-2",
    description="2 stacked ParallelRDA layers, as many weights as rda",
    paper=RDA_PAPER,
    clipvalue=1.0,
    **PAPER_SETTINGS,
    passes_to=layer_class("keras_rda.layers", "ParallelRDA"),
    fixed=("return_sequences", "name"),
)
def build_parallel_rda_2(task, units=250, **kwargs):
    """2 stacked ParallelRDA layers, as many weights as `rda` with `units`.

    The second layer's gates read the first layer's output, so the unit at
    step t sees a function of the past through two discounted averages
    (`matched_parallel_rda_units` gives the width).
    """
    width = matched_parallel_rda_units(units, task.input_dim, task.output_dim)
    first = parallel_rda_layer(
        width, return_sequences=True, name="parallel_rda_1", **kwargs
    )
    second = parallel_rda_layer(
        width, return_sequences=task.per_step, name="parallel_rda_2", **kwargs
    )
    return sequence_model(task, lambda x: second(first(x)), "parallel_rda_2")
