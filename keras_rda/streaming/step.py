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
import numpy as np
from keras import ops

from keras_rda.streaming import inference

# step model -> the `_LayerStates` of its recurrent layers, in order.
_STEP_STATES = weakref.WeakKeyDictionary()

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


def _node_after(layer, previous):
    """The call of `layer` that reads `previous` (a model's graph node)."""
    for node in layer._inbound_nodes:
        if any(t is previous for t in node.arguments.keras_tensors):
            return node
    return None


def _explicit_mask(node):
    """The `mask=` a functional model passes to a layer by hand (not the
    mask Keras propagates with the input), or None."""
    mask = node.arguments.kwargs.get("mask")
    if mask is None:
        return None
    args = node.arguments.args
    propagated = getattr(args[0], "_keras_mask", None) if args else None
    return None if mask is propagated else mask


_EXPLICIT_MASK = (
    "it is given an explicit `mask=` argument, which a step model cannot "
    "compute from the step's input. Make the mask with a layer instead: "
    "`keras.layers.Embedding(..., mask_zero=True)` for token ids padded "
    "with 0, or `keras.layers.Masking(mask_value)` for feature vectors"
)


class _Link:
    """One layer of the chain, and whether its input and output carry a
    Keras mask (`[batch, time]`, propagated through the model's graph)."""

    def __init__(self, layer, node):
        self.layer = layer
        inputs = node.arguments.args[0] if node.arguments.args else None
        self.input_mask = getattr(inputs, "_keras_mask", None)
        output = node.outputs[0] if node.outputs else None
        self.output_mask = getattr(output, "_keras_mask", None)
        self.output = output


def _layers(model):
    """The model's layers (Sequential) or operations (functional), checked."""
    if not isinstance(model, keras.Model):
        raise ValueError(
            "Received an invalid value for argument `model`, expected a "
            f"keras.Model (Sequential or functional), got {type(model).__name__}"
        )
    if isinstance(model, keras.Sequential):
        if not model.built or not model.inputs:
            raise ValueError(
                "Received an invalid value for argument `model`, expected a "
                "built model with a known input shape (keras.Input((None, "
                "features)) first), got an unbuilt Sequential"
            )
        return list(model.layers)
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
    return list(model.operations)


def _chain(model):
    """The model's layers in order as `_Link`s, checked to form one chain.

    The ops that Keras adds to a functional graph to compute a propagated
    mask (`Embedding(mask_zero=True)`'s `not_equal`) are not links: the
    step model computes its mask from the layers that make it.
    """
    operations = _layers(model)
    previous = model.inputs[0]
    nodes = {}
    for operation in operations:
        if isinstance(operation, keras.layers.Layer):
            for node in operation._inbound_nodes:
                nodes[id(node)] = node
                if _explicit_mask(node) is not None:
                    raise _cannot_stream(operation, _EXPLICIT_MASK)
    propagated = {
        id(tensor._keras_mask)
        for node in nodes.values()
        for tensor in node.outputs
        if getattr(tensor, "_keras_mask", None) is not None
    }
    links = []
    for operation in operations:
        if isinstance(operation, keras.layers.InputLayer):
            continue
        if not isinstance(operation, keras.layers.Layer):
            outputs = [t for node in operation._inbound_nodes for t in node.outputs]
            if outputs and all(id(t) in propagated for t in outputs):
                continue  # computes a mask Keras propagates
            raise _cannot_stream(
                operation, "only a chain of layers can stream, not a bare op"
            )
        node = _node_after(operation, previous)
        if node is None or len(node.arguments.keras_tensors) != 1 + (
            node.arguments.kwargs.get("mask") is not None
        ):
            raise _cannot_stream(
                operation,
                "only a single chain of layers (each fed by the one before) can stream",
            )
        link = _Link(operation, node)
        links.append(link)
        previous = link.output
    return links, model.inputs[0]


def _flat_initial_states(cell, batch_size):
    states = cell.get_initial_state(batch_size=batch_size)
    if not isinstance(states, (list, tuple)):
        states = [states]
    return states, keras.tree.flatten(states)


def _numpy(values):
    return [np.asarray(ops.convert_to_numpy(value)) for value in values]


#: Keras's cells, whose output is their first state (`h`): at a masked
#: step, which keeps the state, the output Keras repeats is that state. The
#: package's cells answer for themselves (`output_in_states`,
#: `output_from_states`), as a user's cell may.
_KERAS_OUTPUT_IS_FIRST_STATE = (
    keras.layers.LSTMCell,
    keras.layers.GRUCell,
    keras.layers.SimpleRNNCell,
)


class _LayerStates:
    """How one recurrent layer's states travel through a stream.

    `form` is the cell's inference form (`inference.inference_form`) or
    None (the training form: the stream state is the cell's state).
    `carries_output` says whether the previous output is one more state (a
    masked cell whose output is not a function of its state: the output a
    masked step repeats).
    """

    def __init__(self, layer, form, carries_output):
        self.layer = layer
        self.cell = layer.cell
        self.form = form
        self.carries_output = carries_output
        structure, _ = _flat_initial_states(self.cell, 1)
        self.structure = structure

    def to_stream(self, states):
        """The cell's flat state (arrays) as this layer's stream states."""
        states = _numpy(states)
        if self.form is not None:
            states = inference.to_stream_states(self.cell, states)
        if self.carries_output:
            batch = states[0].shape[0]
            states.append(np.zeros((batch, self._output_size()), states[0].dtype))
        return states

    def to_sequence(self, states):
        """This layer's stream states as the cell's flat state (arrays)."""
        states = _numpy(states)
        if self.carries_output:
            states = states[:-1]
        if self.form is not None:
            states = inference.to_sequence_states(self.cell, states)
        return states

    def initial(self, batch_size):
        _, flat = _flat_initial_states(self.cell, batch_size)
        return self.to_stream(flat)

    def count(self):
        return len(self.initial(1))

    def _output_size(self):
        size = self.cell.output_size
        return int(size if isinstance(size, int) else keras.tree.flatten(size)[0])


def _state_inputs(layer_states):
    """Symbolic inputs for a layer's stream states."""
    layer = layer_states.layer
    return [
        keras.Input(
            shape=tuple(value.shape[1:]),
            dtype=keras.backend.standardize_dtype(value.dtype),
            name=f"{layer.name}_state_{i}",
        )
        for i, value in enumerate(layer_states.initial(1))
    ]


def _keep_masked(mask, new, old):
    rank = len(new.shape)
    mask = ops.reshape(mask, (-1,) + (1,) * (rank - 1))
    return ops.where(mask, new, old)


class _CellStep(keras.layers.Layer):
    """Calls a cell once, named after its layer (two layers' cells may share
    a name). With `inference_form`, a cell that has a step built for
    inference (`inference_call`: a DNC/NTM cell's addressing in ops that
    every runtime has as builtins) computes that one, so that the step
    model's exports need builtin ops only."""

    def __init__(self, cell, inference_form=False, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell
        self.inference_form = inference_form

    def call(self, inputs, states):
        inference_call = getattr(self.cell, "inference_call", None)
        if self.inference_form and inference_call is not None:
            return inference_call(inputs, states)
        return self.cell(inputs, states, training=False)


class _Unmasked(keras.layers.Layer):
    """Applies a built layer without the mask Keras would attach to its
    output (an `Embedding(mask_zero=True)`'s, `[batch]` on a step): the
    step model applies its mask itself (`_StepGraph.mask`)."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer

    def call(self, inputs):
        return self.layer.call(inputs)


def _cell_step(layer, x, states, form, inference_form):
    """`(output, new_states)` of one step of `layer`'s cell on symbolic
    tensors."""
    cell = layer.cell
    if form is not None:
        return inference.InferenceStep(cell, name=f"{layer.name}_inference")(x, states)
    return _CellStep(cell, inference_form, name=f"{layer.name}_step")(x, states)


def _output_in_states(cell):
    """Whether the output a masked step repeats is a function of the states
    it keeps (else the step model carries it as one more state)."""
    if isinstance(cell, _KERAS_OUTPUT_IS_FIRST_STATE):
        return True
    return getattr(cell, "output_in_states", False)


def _held_output(cell, form, states):
    """The output a masked step repeats, from the (kept) states, where
    `_output_in_states(cell)`.

    Keras's recurrent layers repeat the previous output at a masked step
    (zeros before the first real step): for the stream state of an
    inference form that is `inference.output_from_states`, for Keras's
    cells `h`, their first state, and for any other cell its own
    `output_from_states`.
    """
    if form is not None:
        return inference.output_from_states(cell, states)
    if isinstance(cell, _KERAS_OUTPUT_IS_FIRST_STATE):
        return states[0]
    return cell.output_from_states(states)


class _StepGraph:
    """The step model under construction: its symbolic step value `x`, the
    step's mask (from `Embedding(mask_zero=True)` or `Masking`), and the
    recurrent layers' stream states."""

    def __init__(self, step_input, inference_form):
        self.step_input = step_input
        self.x = step_input
        self.inference_form = inference_form
        self.mask = None
        self.layer_states = []
        self.state_inputs = []
        self.new_states = []
        self.sequence_done = False

    def add(self, link):
        """Apply `link.layer` to the step, or raise why it cannot stream."""
        layer = link.layer
        x_before = self.x
        if isinstance(layer, keras.layers.RNN):
            self.add_recurrent(layer, masked=link.input_mask is not None)
        elif isinstance(layer, keras.layers.Masking):
            self.x = ops.where(
                ops.expand_dims(self._masking(layer), -1),
                self.x,
                ops.zeros_like(self.x),
            )
        elif isinstance(layer, keras.layers.TimeDistributed):
            self.x = layer.layer(self.x, training=False)
        elif isinstance(layer, keras.layers.Embedding) and layer.mask_zero:
            self.x = _Unmasked(layer, name=f"{layer.name}_step")(self.x)
        elif isinstance(layer, PER_STEP_LAYERS):
            self.x = layer(self.x, training=False)
        else:
            raise _cannot_stream(layer, _mixing_reason(layer) or _UNKNOWN_LAYER)
        self._follow_mask(link, x_before)

    def _masking(self, layer):
        return ops.any(ops.not_equal(self.x, layer.mask_value), axis=-1)

    def _follow_mask(self, link, x_before):
        """The step's mask after `link`, as Keras propagates it."""
        if link.output_mask is None:
            self.mask = None
        elif link.output_mask is link.input_mask:
            pass  # passed on unchanged
        elif isinstance(link.layer, keras.layers.Embedding) and link.layer.mask_zero:
            # Embedding.compute_mask: the token id 0 pads.
            self.mask = ops.not_equal(x_before, 0)
        elif isinstance(link.layer, keras.layers.Masking):
            self.mask = ops.any(ops.not_equal(x_before, link.layer.mask_value), axis=-1)
        else:
            raise _cannot_stream(
                link.layer,
                "it makes a mask (compute_mask) that a step model cannot "
                "compute; masks stream from `Embedding(mask_zero=True)` (token "
                "id 0 pads) and `Masking`",
            )

    def add_recurrent(self, layer, masked):
        """One step of a recurrent layer's cell, its states as new inputs."""
        _check_streams(layer, self.sequence_done)
        cell = layer.cell
        form = inference.inference_form(cell) if self.inference_form else None
        masked = masked and self.mask is not None
        carries_output = (
            masked and not layer.zero_output_for_mask and not _output_in_states(cell)
        )
        layer_states = _LayerStates(layer, form, carries_output)
        state_inputs = _state_inputs(layer_states)
        cell_inputs = state_inputs[:-1] if carries_output else state_inputs
        if form is None:
            states = keras.tree.pack_sequence_as(layer_states.structure, cell_inputs)
        else:
            states = list(cell_inputs)
        output, new_states = _cell_step(
            layer, self.x, states, form, self.inference_form
        )
        new_flat = keras.tree.flatten(new_states)
        if masked:
            new_flat = [
                _keep_masked(self.mask, new, old)
                for new, old in zip(new_flat, cell_inputs)
            ]
            if layer.zero_output_for_mask:
                held = ops.zeros_like(output)
            elif carries_output:
                held = state_inputs[-1]
            else:
                held = _held_output(cell, form, new_flat)
            output = _keep_masked(self.mask, output, held)
            if carries_output:
                new_flat.append(output)
        self.layer_states.append(layer_states)
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
            `NTM`), per-step layers (`PER_STEP_LAYERS`, `TimeDistributed`),
            `keras.layers.Embedding` (also with `mask_zero=True`) and
            `keras.layers.Masking`. The last recurrent layer may have
            `return_sequences=False` (its step output is then the model's
            output on the sequence so far) if only per-step layers follow.
        inference_form: whether the steps take their forms built for
            inference (default): the RWA/RDA/ParallelRDA step with fewer
            ops and its own stream state (`keras_rda.streaming.inference`)
            and the DNC/NTM addressing in ops that LiteRT has as builtins
            (`keras_rda.ops.addressing.builtin_forms`). The same function
            to float32 rounding; False gives the training forms.

    Returns:
        A `keras.Model` with inputs `[x_t, *states]` and outputs
        `[y_t, *new_states]`, `x_t` being one step of the model's input
        (`[batch, ...]`, no time axis: token ids `[batch]` for an
        `Embedding`) and the states the recurrent layers' stream states,
        flattened, in layer order (`initial_states` gives them;
        `stream_states` / `sequence_states` convert from and to the
        sequence layers' states). The cells and layers are the model's, so
        the weights are the same variables. With a mask (a padding token
        of an `Embedding(mask_zero=True)`, a `Masking` value), a masked
        step keeps every state and gives the output the sequence model
        gives there (the previous output, zeros before the first real
        step, or zeros with `zero_output_for_mask=True`).

    Raises:
        ValueError: for a layer that mixes time steps (naming the layer and
            why), a mask the step cannot compute (an explicit `mask=`
            argument), or a model that is not a single chain.
    """
    links, sequence_input = _chain(model)
    graph = _StepGraph(_step_input(sequence_input), inference_form)
    for link in links:
        graph.add(link)
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
    _STEP_STATES[step] = graph.layer_states
    return step


def _layer_states(model):
    """The `_LayerStates` of `model`'s stream (building its step model
    when `model` is the sequence model)."""
    if model not in _STEP_STATES:
        model = step_model(model)
    return _STEP_STATES[model]


def initial_states(model, batch_size=1):
    """The states a stream starts from: a list of arrays for `step_model`.

    Args:
        model: the step model, or the sequence model (whose default step
            model's states are returned).
        batch_size: positive int.

    Returns:
        NumPy arrays: the stream states of every recurrent layer, in the
        step model's order, from the cells' `get_initial_state` (learned
        initial states and write-schedule step counters included).
    """
    states = []
    for layer_states in _layer_states(model):
        states.extend(layer_states.initial(batch_size))
    return states


def _split(layers, values, count):
    values = list(values)
    groups = []
    for layer_states in layers:
        size = count(layer_states)
        groups.append(values[:size])
        values = values[size:]
    if values:
        raise ValueError(
            "Received an invalid value for argument `states`, expected "
            f"{sum(count(s) for s in layers)} arrays, got more"
        )
    return groups


def stream_states(step, states):
    """A sequence model's states as the step model's stream states.

    Args:
        step: a step model from `step_model`.
        states: the flat states of every recurrent layer in order, as
            `return_state` gives them and `initial_state` takes them
            (`[h, n^, d^, m]` for an RDA, `[h, c]` for an LSTM, ...).

    Returns:
        NumPy arrays to feed `step` (see `keras_rda.streaming.inference`
        for the RWA/RDA family's stream state).
    """
    layers = _layer_states(step)
    groups = _split(layers, states, lambda s: len(keras.tree.flatten(s.structure)))
    return [
        value
        for layer_states, group in zip(layers, groups)
        for value in layer_states.to_stream(group)
    ]


def sequence_states(step, states):
    """The step model's stream states as the sequence model's states.

    Args:
        step: a step model from `step_model`.
        states: its stream states (what it returns after `y_t`).

    Returns:
        NumPy arrays: each recurrent layer's flat state, in order, for its
        `initial_state` (a sequence call continuing the stream).
    """
    layers = _layer_states(step)
    groups = _split(layers, states, lambda s: s.count())
    return [
        value
        for layer_states, group in zip(layers, groups)
        for value in layer_states.to_sequence(group)
    ]
