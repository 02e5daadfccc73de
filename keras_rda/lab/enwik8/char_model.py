"""The RDA paper's character-level language model (section 6.1).

"For the Wikipedia task, we use a character embedding of 64 dimensions,
followed by a single layer of 1800 recurrent units, and a final softmax layer
for the character prediction." The model is a functional `keras.Model` whose
recurrent state is an explicit input and output, so a training loop can carry
it from one truncated-BPTT segment to the next:

    inputs:  [tokens [batch, time] int32, state_1 [batch, s_1], ..., state_k]
    outputs: [logits [batch, time, vocab], new_state_1, ..., new_state_k]

k is the number of state tensors of the recurrent layer (LSTM 2, GRU 1,
RDA/RWA 4: [h, n, d, m], ParallelRDA 3: [n, d, m]); nothing downstream
depends on it. The softmax is folded into the loss (the model returns logits).
"""

import keras_rda.lab.zoo  # noqa: F401  (registers the zoo)
from keras_rda.utils import validation

MODELS = ("rda", "rda-exp-tanh", "lstm", "gru", "rwa", "parallel-rda")
RNN_LAYER_NAME = "rnn"


def recurrent_layer(model, units, use_cudnn=False):
    """The sequence layer of zoo model `model` with `units` units (the
    zoo's: `lstm` here is the zoo's `lstm`, and so on).

    It returns sequences and states. `use_cudnn` is Keras's, for "lstm" and
    "gru": False by default, since XLA cannot compile cuDNN kernels.
    """
    from keras_rda.lab.zoo.registry import get_model_spec

    validation.one_of("model", model, MODELS)
    kwargs = dict(return_sequences=True, return_state=True, name=RNN_LAYER_NAME)
    if model in ("lstm", "gru"):
        kwargs["use_cudnn"] = use_cudnn
    return get_model_spec(model).layer(units, **kwargs)


def state_sizes(layer):
    """The sizes of the recurrent state tensors of a Keras RNN layer."""
    sizes = layer.cell.state_size
    if isinstance(sizes, int):
        return [sizes]
    return [int(s) for s in sizes]


def build_char_model(
    model="lstm", units=128, vocab_size=256, embedding_dim=64, use_cudnn=False
):
    """The paper's enwik8 model with its state as explicit inputs/outputs.

    Args:
        model: recurrent unit, one of `MODELS`.
        units: recurrent units (1800 in the paper).
        vocab_size: number of symbols (256 for byte-level enwik8).
        embedding_dim: character embedding size (64 in the paper).
        use_cudnn: see `recurrent_layer`.

    Returns:
        An uncompiled `keras.Model` mapping `[tokens, *states]` to
        `[logits, *new_states]`; its recurrent layer is named "rnn".

    Example:

    ```python
    model = build_char_model("rda", units=1800)
    rnn = model.get_layer("rnn")
    states = rnn.get_initial_state(batch_size=8)
    logits, *states = model([tokens, *states])
    ```
    """
    import keras

    rnn = recurrent_layer(model, units, use_cudnn=use_cudnn)
    tokens = keras.Input((None,), dtype="int32", name="tokens")
    state_inputs = [
        keras.Input((size,), name=f"state_{i}")
        for i, size in enumerate(state_sizes(rnn))
    ]
    x = keras.layers.Embedding(vocab_size, embedding_dim, name="embedding")(tokens)
    outputs, *new_states = rnn(x, initial_state=state_inputs)
    logits = keras.layers.Dense(vocab_size, name="softmax_logits")(outputs)
    return keras.Model(
        [tokens, *state_inputs], [logits, *new_states], name=f"enwik8_{model}"
    )
