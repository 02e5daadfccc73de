"""A streaming step model from a trained sequence model.

`step_model(model)` walks a `keras.Sequential` or a functional chain
(`[batch, time, ...]` in) and builds a `keras.Model` that maps
`[x_t, *states]` to `[y_t, *new_states]`: each recurrent layer's cell is
called once on the step, each per-step layer is applied to the step alone.
The cells and layers are the trained model's own objects, so the step model
uses the same variables (no copies). `initial_states` gives the states to
start from (the cells' `get_initial_state`: learned initial states and the
write schedules' step counters included).
"""

import weakref

import keras
from keras import ops

from keras_rda.memory.base_memory_cell import BaseMemoryCell
from keras_rda.ops import addressing
from keras_rda.streaming import inference

# step model -> the cells whose states it takes, in order.
_STEP_CELLS = weakref.WeakKeyDictionary()

#: Layers that act on each time step alone: applied to `x_t` they give the
#: sequence layer's output at step `t`.
PER_STEP_LAYERS = (
    keras.layers.Dense,
    keras.layers.EinsumDense,
    keras.layers.Embedding,
    keras.layers.LayerNormalization,
    keras.layers.BatchNormalization,
    keras.layers.UnitNormalization,
    keras.layers.Dropout,
    keras.layers.GaussianNoise,
    keras.layers.GaussianDropout,
    keras.layers.AlphaDropout,
    keras.layers.ActivityRegularization,
    keras.layers.Activation,
    keras.layers.ReLU,
    keras.layers.LeakyReLU,
    keras.layers.PReLU,
    keras.layers.ELU,
    keras.layers.Softmax,
    keras.layers.Identity,
    keras.layers.Rescaling,
)

#: Why a layer that mixes time steps cannot stream, by class name.
_MIXING_REASONS = {
    "Bidirectional": "it reads the sequence backwards too, so step t needs the "
    "steps after it",
    "FeedForwardAttention": "it pools over all time steps (softmax over time)",
    "GlobalAveragePooling1D": "it pools over all time steps",
    "GlobalMaxPooling1D": "it pools over all time steps",
    "Flatten": "it merges the time axis into the features",
    "Attention": "it attends over all time steps",
    "MultiHeadAttention": "it attends over all time steps",
}


def _mixing_reason(layer):
    if isinstance(layer, keras.layers.Bidirectional):
        return _MIXING_REASONS["Bidirectional"]
    for cls in type(layer).__mro__:
        if cls.__name__ in _MIXING_REASONS:
            return _MIXING_REASONS[cls.__name__]
        if cls.__name__.startswith(("Conv", "Pooling", "MaxPooling", "AveragePool")):
            return "it convolves or pools over neighbouring time steps"
    return None


def _cannot_stream(layer, reason):
    return ValueError(
        f"Cannot make a streaming step model: layer {layer.name!r} "
        f"({type(layer).__name__}) cannot stream: {reason}."
    )


def _chain(model):
    """The model's layers in order, checked to form a single chain."""
    if not isinstance(model, keras.Model):
        raise ValueError(
            "Received an invalid value for argument `model`, expected a "
            f"keras.Model (Sequential or functional), got {type(model).__name__}"
        )
    if isinstance(model, keras.Sequential):
        layers = list(model.layers)
        if not model.built or not model.inputs:
            raise ValueError(
                "Received an invalid value for argument `model`, expected a "
                "built model with a known input shape (keras.Input((None, "
                "features)) first), got an unbuilt Sequential"
            )
        return layers, model.inputs[0]
    if not hasattr(model, "operations") or not hasattr(model, "inputs"):
        raise ValueError(
            "Received an invalid value for argument `model`, expected a "
            "Sequential or functional keras.Model, got a subclassed model "
            f"{type(model).__name__}"
        )
    if len(model.inputs) != 1 or len(model.outputs) != 1:
        raise ValueError(
            "Received an invalid value for argument `model`, expected a model "
            "with one input and one output (a chain of layers), got "
            f"{len(model.inputs)} inputs and {len(model.outputs)} outputs"
        )
    layers = []
    previous = model.inputs[0]
    for operation in model.operations:
        if isinstance(operation, keras.layers.InputLayer):
            continue
        if not isinstance(operation, keras.layers.Layer):
            raise _cannot_stream(
                operation, "only a chain of layers can stream, not a bare op"
            )
        if operation.input is not previous:
            raise _cannot_stream(
                operation,
                "only a single chain of layers (each fed by the one before) can stream",
            )
        layers.append(operation)
        previous = operation.output
    return layers, model.inputs[0]


def _flat_initial_states(cell, batch_size):
    states = cell.get_initial_state(batch_size=batch_size)
    if not isinstance(states, (list, tuple)):
        states = [states]
    return states, keras.tree.flatten(states)


def _recurrent_layers(model):
    layers, _ = _chain(model)
    return [layer for layer in layers if isinstance(layer, keras.layers.RNN)]


def _state_inputs(layer, cell):
    """Symbolic inputs for the flattened states of `cell`."""
    structure, flat = _flat_initial_states(cell, 1)
    inputs = [
        keras.Input(
            shape=tuple(value.shape[1:]),
            dtype=keras.backend.standardize_dtype(value.dtype),
            name=f"{layer.name}_state_{i}",
        )
        for i, value in enumerate(flat)
    ]
    return structure, inputs


def _keep_masked(mask, new, old):
    rank = len(new.shape)
    mask = ops.reshape(mask, (-1,) + (1,) * (rank - 1))
    return ops.where(mask, new, old)


class _MemoryStep(keras.layers.Layer):
    """Calls a DNC/NTM cell with the addressing in its builtin forms
    (`keras_rda.ops.addressing.builtin_forms`), whenever the step model
    is traced: its exports then need builtin ops only."""

    def __init__(self, cell, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell

    def call(self, inputs, states):
        with addressing.builtin_forms():
            return self.cell(inputs, states, training=False)


def _cell_step(cell, x, states, inference_form):
    """`(output, new_states)` of one step of `cell` on symbolic tensors."""
    if inference_form and inference.has_inference_form(cell):
        return inference.InferenceStep(cell, name=f"{cell.name}_inference")(x, states)
    if inference_form and isinstance(cell, BaseMemoryCell):
        return _MemoryStep(cell, name=f"{cell.name}_step")(x, states)
    return cell(x, states, training=False)


class _StepGraph:
    """The step model under construction: its symbolic step value `x`, the
    mask of a `Masking` layer, and the recurrent layers' states."""

    def __init__(self, step_input, inference_form):
        self.step_input = step_input
        self.x = step_input
        self.inference_form = inference_form
        self.mask = None
        self.cells = []
        self.state_inputs = []
        self.new_states = []
        self.sequence_done = False

    def add(self, layer):
        """Apply `layer` to the step, or raise why it cannot stream."""
        if isinstance(layer, keras.layers.RNN):
            self.add_recurrent(layer)
        elif isinstance(layer, keras.layers.Masking):
            self.mask = ops.any(ops.not_equal(self.x, layer.mask_value), axis=-1)
            self.x = ops.where(
                ops.expand_dims(self.mask, -1), self.x, ops.zeros_like(self.x)
            )
        elif isinstance(layer, keras.layers.TimeDistributed):
            self.x = layer.layer(self.x, training=False)
        elif isinstance(layer, PER_STEP_LAYERS):
            if isinstance(layer, keras.layers.Embedding) and layer.mask_zero:
                raise _cannot_stream(
                    layer, "mask_zero=True is not supported (use Masking)"
                )
            self.x = layer(self.x, training=False)
        else:
            raise _cannot_stream(layer, _mixing_reason(layer) or _UNKNOWN_LAYER)

    def add_recurrent(self, layer):
        """One step of a recurrent layer's cell, its states as new inputs."""
        _check_streams(layer, self.sequence_done)
        cell = layer.cell
        structure, state_inputs = _state_inputs(layer, cell)
        states = keras.tree.pack_sequence_as(structure, state_inputs)
        output, new_states = _cell_step(cell, self.x, states, self.inference_form)
        new_flat = keras.tree.flatten(new_states)
        if self.mask is not None:
            new_flat = [
                _keep_masked(self.mask, new, old)
                for new, old in zip(new_flat, state_inputs)
            ]
            output = _keep_masked(self.mask, output, ops.zeros_like(output))
        self.cells.append(cell)
        self.state_inputs.extend(state_inputs)
        self.new_states.extend(new_flat)
        self.x = output
        self.sequence_done = not layer.return_sequences


_UNKNOWN_LAYER = (
    "it is not known to act on each time step alone (supported: "
    "recurrent layers, Masking, TimeDistributed and "
    + ", ".join(cls.__name__ for cls in PER_STEP_LAYERS)
    + ")"
)


def _check_streams(layer, sequence_done):
    """Raise why recurrent `layer` cannot stream, if it cannot."""
    if sequence_done:
        raise _cannot_stream(
            layer,
            "it follows a recurrent layer with return_sequences=False, "
            "which gives one output per sequence, not per step",
        )
    if layer.go_backwards:
        raise _cannot_stream(layer, "it runs backwards (go_backwards=True)")
    if layer.return_state:
        raise _cannot_stream(
            layer,
            "return_state=True is not supported in a chain (make the model "
            "without it; the step model returns the states anyway)",
        )


def _step_input(sequence_input):
    """`x_t`: a symbolic input of one step of `sequence_input`."""
    if len(sequence_input.shape) < 2:
        raise ValueError(
            "Received an invalid value for argument `model`, expected "
            "`[batch, time, ...]` inputs, got input shape "
            f"{tuple(sequence_input.shape)}"
        )
    return keras.Input(
        shape=tuple(sequence_input.shape[2:]),
        dtype=sequence_input.dtype,
        name="x_t",
    )


def step_model(model, inference_form=True):
    """A `keras.Model` that runs `model` one time step at a time.

    Args:
        model: a built `keras.Sequential` or functional model whose layers
            form one chain over `[batch, time, ...]` inputs: recurrent layers
            (`keras.layers.RNN` over any cell, Keras's `LSTM`/`GRU`/
            `SimpleRNN`, `keras_rda.RDA`, `RWA`, `ParallelRDA`, `DNC`,
            `NTM`), per-step layers (`PER_STEP_LAYERS`, `TimeDistributed`)
            and `keras.layers.Masking`. The last recurrent layer may have
            `return_sequences=False` (its step output is then the model's
            output on the sequence so far) if only per-step layers follow.
        inference_form: whether the steps take their forms built for
            inference (default): the RWA/RDA/ParallelRDA step with fewer
            ops (`keras_rda.streaming.inference`) and the DNC/NTM
            addressing in ops that LiteRT has as builtins
            (`keras_rda.ops.addressing.builtin_forms`). The same function
            to float32 rounding; False gives the training forms.

    Returns:
        A `keras.Model` with inputs `[x_t, *states]` and outputs
        `[y_t, *new_states]`, `x_t` being one step of the model's input
        (`[batch, ...]`, no time axis) and the states each recurrent layer's
        cell states, flattened, in layer order (`initial_states` gives
        them). The cells and layers are the model's, so the weights are the
        same variables. With a `Masking` layer, a masked step keeps every
        state (as the sequence model does) and outputs zeros from the
        recurrent layers.

    Raises:
        ValueError: for a layer that mixes time steps (naming the layer and
            why), or a model that is not a single chain.
    """
    layers, sequence_input = _chain(model)
    graph = _StepGraph(_step_input(sequence_input), inference_form)
    for layer in layers:
        graph.add(layer)
    if not graph.state_inputs:
        raise ValueError(
            "Received an invalid value for argument `model`, expected at least "
            "one recurrent layer, got none"
        )
    step = keras.Model(
        [graph.step_input, *graph.state_inputs],
        [graph.x, *graph.new_states],
        name=f"{model.name}_step",
    )
    _STEP_CELLS[step] = graph.cells
    return step


def initial_states(model, batch_size=1):
    """The states a stream starts from: a list of arrays for `step_model`.

    Args:
        model: the sequence model, or the step model made from it.
        batch_size: positive int.

    Returns:
        NumPy arrays: the flattened initial states of every recurrent layer,
        in the step model's order (the cells' `get_initial_state`: learned initial
        states and write-schedule step counters included).
    """
    if model in _STEP_CELLS:
        cells = _STEP_CELLS[model]
    else:
        cells = [layer.cell for layer in _recurrent_layers(model)]
    states = []
    for cell in cells:
        _, flat = _flat_initial_states(cell, batch_size)
        states.extend(ops.convert_to_numpy(value) for value in flat)
    return states
