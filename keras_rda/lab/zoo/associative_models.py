"""Zoo entries of the WeiNet paper's associative recall comparison (Table 1).

"weinet", "weinet-rc" (the row x column update of Figure 3), "fw-ln",
"lstm-ln" and "rhn": one recurrent layer of 50 units
reading the sequence, a linear read-out of its last output (logits), and the
paper's training settings: Adam, learning rate 1e-4, batch 128, gradient
clipping to [-5, 5] (WeiNet paper, Experiments and appendix). The plain
"lstm" of the comparison is the zoo's (`rnn_models`).
"""

from keras_rda.lab.zoo.registry import register_model
from keras_rda.lab.zoo.rnn_models import sequence_model

PAPER = "WeiNet paper (Zhang & Zhou), Experiments and appendix"
SETTINGS = dict(
    paper=PAPER, learning_rate=1e-4, clipvalue=5.0, batch_size=128, units=50
)


def sequence_classifier(task, cell, name):
    """`Input -> RNN(cell) -> Dense(task.output_dim)` (per step if needed)."""
    import keras

    layer = keras.layers.RNN(cell, return_sequences=task.per_step, name="rnn")
    return sequence_model(task, layer, name, head_name="readout")


@register_model(
    "weinet",
    description="WeiNet: one learned auto-associative memory (eq. 2, 5-7)",
    **SETTINGS,
)
def build_weinet(
    task,
    units=50,
    num_memories=1,
    update="elementwise",
    router=False,
    decay_initializer=None,
    memory_clip=100.0,
):
    """WeiNet: one learned auto-associative memory (eq. 2, 5-7).

    `decay_initializer` is the cell's (W_A of eq. 5; None: the appendix's
    N(0.9, 0.1)); on the command line e.g. `--model-arg
    'decay_initializer={"class_name": "RandomNormal", "config": {"mean":
    0.9, "stddev": 0.01}}'`. `memory_clip` is the cell's safeguard bound on
    `|A|` (`--model-arg memory_clip=null` removes it, as in the paper).
    """
    from keras_rda.cells import WeiNetCell

    cell = WeiNetCell(
        units,
        num_memories=num_memories,
        update=update,
        router=router,
        decay_initializer=decay_initializer,
        memory_clip=memory_clip,
    )
    return sequence_classifier(task, cell, "weinet")


@register_model(
    "weinet-rc",
    description="WeiNet with row x column update weights (Figure 3, O(H) params)",
    **SETTINGS,
)
def build_weinet_row_col(
    task,
    units=50,
    num_memories=1,
    router=False,
    decay_initializer=None,
    memory_clip=100.0,
):
    """WeiNet with the "row and col" memory update of Figure 3.

    `decay_initializer` draws each factor of `W_A = c r^T` (the cell's
    argument; None: the appendix's N(0.9, 0.1) in factor form);
    `memory_clip` as for "weinet".
    """
    from keras_rda.cells import WeiNetCell

    cell = WeiNetCell(
        units,
        num_memories=num_memories,
        update="row_col",
        router=router,
        decay_initializer=decay_initializer,
        memory_clip=memory_clip,
    )
    return sequence_classifier(task, cell, "weinet_rc")


@register_model(
    "fw-ln",
    description="Fast weights with layer norm (Ba et al. 2016), lambda 0.95, eta 0.5",
    **SETTINGS,
)
def build_fast_weights(task, units=50, inner_steps=1):
    """Fast weights with layer normalisation (FW-LN)."""
    from keras_rda.cells import FastWeightsCell

    cell = FastWeightsCell(units, inner_steps=inner_steps)
    return sequence_classifier(task, cell, "fw_ln")


@register_model(
    "lstm-ln",
    description="Layer-normalised LSTM (Ba, Kiros & Hinton 2016)",
    **SETTINGS,
)
def build_lstm_ln(task, units=50):
    """Layer-normalised LSTM."""
    from keras_rda.cells import LayerNormLSTMCell

    return sequence_classifier(task, LayerNormLSTMCell(units), "lstm_ln")


@register_model(
    "rhn",
    description="Recurrent highway network, coupled gates, layer norm (Zilly 2016)",
    **SETTINGS,
)
def build_rhn(task, units=50, depth=2):
    """Recurrent highway network with coupled gates and layer norm (RHN-LN)."""
    from keras_rda.cells import RecurrentHighwayCell

    cell = RecurrentHighwayCell(units, depth=depth, layer_norm=True)
    return sequence_classifier(task, cell, "rhn")
