"""`BaseMemoryCell`: what `DNCCell` and `NTMCell` share.

A controller (any Keras RNN cell), an external memory accessed through an
interface vector, the write schedule, the Cached Uniform Writing cache and
attention, the state, the output projection and the config. One step reads
like Algorithm 1 of Le, Tran & Venkatesh 2019 (`BaseMemoryCell.step`).
"""

import abc
import collections

import keras
from keras import ops
from keras import tree

from keras_rda.memory.held_reads_lstm import lstm_step_with_held_reads
from keras_rda.memory.schedules import get_write_schedule
from keras_rda.utils import keras_compat
from keras_rda.utils import validation
from keras_rda.utils.initializers import independent
from keras_rda.utils.keras_compat import DropoutRNNCell

# The step counter is kept in two state entries (t = high * BASE + low) so
# that it stays an exact integer in float16/bfloat16 states (mixed precision).
_STEP_BASE = 128

#: The state of a memory cell, by part (DeepMind's `AccessState` idea):
#: `step` int32 `[B]`, steps done so far; `controller` the controller's
#: state structure; `access` the subclass's `AccessState` namedtuple of
#: float32 tensors (memory, weightings, ...); `read_vectors` float32
#: `[B, R, W]`; `cache` `[B, L, H]` with Cached Uniform Writing, else None.
#: Keras sees it flattened to `state_size` (`BaseMemoryCell.pack_states`).
MemoryState = collections.namedtuple(
    "MemoryState", ("step", "controller", "access", "read_vectors", "cache")
)


def _select(condition, new, old):
    """Per sample `new` where `condition` `[B]` else `old` (exact either way).

    Written as `new * c + old * (1 - c)` rather than `ops.where`, whose
    broadcast inside a `cond` gives XLA a gradient with a non-constant shape.
    """
    c = ops.cast(condition, new.dtype)
    c = ops.reshape(c, (-1,) + (1,) * (len(new.shape) - 1))
    return new * c + old * (1.0 - c)


def _static(flag):
    """`flag` as a Python bool if it is known when tracing, else None."""
    if isinstance(flag, bool) or type(flag).__name__ == "bool_":
        return bool(flag)
    return None


def _size(shape):
    size = 1
    for dim in shape:
        size *= dim
    return size


class BaseMemoryCell(keras.layers.Layer, DropoutRNNCell, abc.ABC):
    """Base class of the memory cells: controller + memory + write schedule.

    One step `t` (`x_t` the input, `r_{t-1}` the previous read vectors), in
    the order of Algorithm 1 of Le et al. 2019 (`step`):

    1. cache (Cached Uniform Writing only, lines 2-6): append `h_{t-1}` to the
       cache; on a cache step replace `h_{t-1}` by the cache attention `a_t`
       (eq. 9-10);
    2. controller: `o_t, h_t = controller([x_t, r_{t-1}], h_{t-1})` (eq. 3-4);
    3. memory access, only on the schedule's access steps (lines 7-9): the
       interface vector `xi_t = W_xi o_t + b`, the write (eq. 2) and the read
       `r_t` (eq. 1); on other steps memory, weightings and `r_t = r_{t-1}`
       are held and none of this is computed (`keras.ops.cond` inside
       `keras.layers.RNN`; the `DNC`/`NTM` layers decide it when tracing);
    4. output: `y_t = W_y [o_t, r_t] + b_y` (the DNC paper's
       `y_t = W_y [h_t; r_t]`; the same for the NTM).

    With `clip_value`, `xi_t` and `y_t` are clipped to `+-clip_value`.

    Every path computes its steps with two methods built from the same
    pieces (`_controller_step`, `_cache_slot`, `output_features`, ...):
    `step`, one step, with the schedule's decisions as bool tensors (`call`,
    inside `keras.layers.RNN`) or as Python bools (the `DNC` / `NTM`
    layers' static path: no conditional), and `steps_without_access`, a
    stretch of steps between two accesses in one loop (the layers' static
    path). A sequence layer uses them with `unpack_states` / `pack_states`
    and `project`.

    The memory-side arithmetic runs in float32 also under mixed precision.
    The state is a `MemoryState` inside the cell, flattened to the flat
    `state_size` that Keras expects only at the boundary (`unpack_states`,
    `pack_states`). An all-zero state is the initial state (what
    `keras.layers.RNN.reset_state` restores).

    Subclasses define `AccessState` (a namedtuple class of the memory-side
    state), `_access_shapes()` (an `AccessState` of shapes without the batch
    axis), `_interface_size()` and `_access(interface, access_state,
    builtin_forms)` returning the new `AccessState` and the read vectors
    `[B, R, W]`, plus `weightings(states)` for plots. Sub-layers are
    created in `build`, so a subclass may set its attributes after
    `super().__init__()`.

    The controller's dropout masks follow the memory cell's: `keras.layers.RNN`
    creates them before the loop and resets them after each call through
    `get_dropout_mask` / `reset_dropout_mask` (and the recurrent ones), which
    this class forwards to the controller.
    """

    AccessState = None

    def __init__(
        self,
        controller,
        memory_size,
        word_size,
        num_read_heads=1,
        write_schedule="regular",
        output_units=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        clip_value=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if isinstance(controller, dict):
            controller = keras.saving.deserialize_keras_object(controller)
        if not isinstance(controller, keras.layers.Layer) or not hasattr(
            controller, "state_size"
        ):
            raise ValueError(
                "Received an invalid value for argument `controller`, expected "
                "a Keras RNN cell (a layer with `state_size`), got "
                f"{controller!r}"
            )
        self.controller = controller
        self.memory_size = validation.positive_int("memory_size", memory_size)
        self.word_size = validation.positive_int("word_size", word_size)
        self.num_read_heads = validation.positive_int("num_read_heads", num_read_heads)
        self.write_schedule = get_write_schedule(write_schedule)
        self.write_schedule.validate(self.memory_size)
        self.output_units = validation.positive_int(
            "output_units", output_units, allow_none=True
        )
        self.kernel_initializer = validation.initializer(
            "kernel_initializer", kernel_initializer
        )
        self.bias_initializer = validation.initializer(
            "bias_initializer", bias_initializer
        )
        self.clip_value = (
            None
            if clip_value is None
            else validation.in_range(
                "clip_value", clip_value, 0.0, float("inf"), low_inclusive=False
            )
        )
        self.cache_size = self.write_schedule.cache_size
        # DropoutRNNCell's own rates: the dropout is the controller's.
        self.dropout = 0.0
        self.recurrent_dropout = 0.0

        self._controller_state_size = controller.state_size
        self._controller_flat_sizes = [
            int(s) for s in tree.flatten(controller.state_size)
        ]
        controller_output = getattr(controller, "output_size", None)
        self._controller_output_size = int(
            controller_output
            if controller_output is not None
            else self._controller_flat_sizes[0]
        )
        if not self.write_schedule.always_accesses:
            # TensorFlow's XLA cannot compile the gradient of the memory
            # `cond` inside the RNN loop with a dynamic batch size (inference
            # compiles); this makes `jit_compile="auto"` fall back to graph
            # mode instead of failing on GPU. The `DNC` / `NTM` layers have
            # no `cond` and compile.
            self.supports_jit = False

    # ------------------------------------------------------------------
    # Contract of the subclasses.

    @abc.abstractmethod
    def _access_shapes(self):
        """An `AccessState` of shapes without the batch axis."""

    @abc.abstractmethod
    def _interface_size(self):
        """Size of the interface vector `xi_t`."""

    @abc.abstractmethod
    def _access(self, interface, access_state, builtin_forms=False):
        """Write then read: returns (new `AccessState`, reads `[B, R, W]`),
        the addressing in builtin forms where asked
        (`keras_rda.ops.addressing`)."""

    @abc.abstractmethod
    def weightings(self, states):
        """Write and read weightings held in `states` (see subclasses)."""

    # ------------------------------------------------------------------
    # RNN-cell contract.

    @property
    def output_size(self):
        return self.output_units or self._controller_output_size

    @property
    def _read_size(self):
        return self.num_read_heads * self.word_size

    @property
    def state_size(self):
        sizes = [1, 1] + list(self._controller_flat_sizes)
        sizes += [_size(shape) for shape in self._access_shapes()]
        sizes.append(self._read_size)
        if self.cache_size is not None:
            sizes.append(self.cache_size * self._controller_flat_sizes[0])
        return sizes

    def build(self, input_shape):
        input_dim = validation.step_input_dim(self, input_shape)
        # A later call on another feature size (also inside
        # `keras.layers.RNN`) gets Keras's message naming both sizes.
        self.input_spec = keras.layers.InputSpec(axes={-1: input_dim})
        if not self.controller.built:
            self.controller.build((None, input_dim + self._read_size))
        self.interface = keras.layers.Dense(
            self._interface_size(),
            kernel_initializer=independent(self.kernel_initializer, "interface"),
            bias_initializer=independent(self.bias_initializer, "interface_bias"),
            dtype=self.dtype_policy,
            name="interface",
        )
        self.interface.build((None, self._controller_output_size))
        self.output_projection = keras.layers.Dense(
            self.output_size,
            kernel_initializer=independent(self.kernel_initializer, "output"),
            bias_initializer=independent(self.bias_initializer, "output_bias"),
            dtype=self.dtype_policy,
            name="output_projection",
        )
        self.output_projection.build(
            (None, self._controller_output_size + self._read_size)
        )
        if self.cache_size is not None:
            hidden = self._controller_flat_sizes[0]
            for name, shape in (
                ("cache_query_kernel", (hidden, hidden)),
                ("cache_key_kernel", (hidden, hidden)),
                ("cache_read_kernel", (self._read_size, hidden)),
                ("cache_score_kernel", (hidden, 1)),
            ):
                kernel = self.add_weight(
                    name=name,
                    shape=shape,
                    initializer=independent(self.kernel_initializer, name),
                )
                setattr(self, name, kernel)
        self.built = True

    def get_initial_state(self, batch_size=None):
        """The controller's initial state; zeros everywhere else."""
        dtype = self.compute_dtype
        get_controller_state = getattr(self.controller, "get_initial_state", None)
        if get_controller_state is not None:
            controller_states = tree.flatten(
                get_controller_state(batch_size=batch_size)
            )
        else:
            controller_states = [
                ops.zeros((batch_size, size), dtype=dtype)
                for size in self._controller_flat_sizes
            ]
        # One tensor per state (a stateful RNN's variables share their
        # initial tensors' storage on PyTorch).
        states = [ops.zeros((batch_size, 1), dtype=dtype) for _ in range(2)]
        states += [ops.cast(s, dtype) for s in controller_states]
        states += [
            ops.zeros((batch_size, size), dtype=dtype)
            for size in self.state_size[len(states) :]
        ]
        return states

    # ------------------------------------------------------------------
    # Dropout: the controller's masks live and die with this cell's.

    def _controller_dropout(self):
        if isinstance(self.controller, DropoutRNNCell):
            return self.controller
        return None

    def get_dropout_mask(self, step_input):
        """Create the controller's input mask for `[x_t, r_{t-1}]`."""
        controller = self._controller_dropout()
        if controller is not None:
            batch = ops.shape(step_input)[0]
            reads = ops.zeros((batch, self._read_size), dtype=step_input.dtype)
            controller.get_dropout_mask(ops.concatenate([step_input, reads], -1))
        return None

    def get_recurrent_dropout_mask(self, step_input):
        """Create the controller's recurrent mask (for its state `h`)."""
        controller = self._controller_dropout()
        if controller is not None:
            batch = ops.shape(step_input)[0]
            hidden = ops.zeros(
                (batch, self._controller_flat_sizes[0]), dtype=step_input.dtype
            )
            controller.get_recurrent_dropout_mask(hidden)
        return None

    def reset_dropout_mask(self):
        controller = self._controller_dropout()
        if controller is not None:
            controller.reset_dropout_mask()

    def reset_recurrent_dropout_mask(self):
        controller = self._controller_dropout()
        if controller is not None:
            controller.reset_recurrent_dropout_mask()

    # ------------------------------------------------------------------
    # The state: flat at the Keras boundary, a `MemoryState` inside.

    def unpack_states(self, states):
        """The flat state list as a `MemoryState` (float32 memory side).

        Returns:
            `MemoryState(step, controller, access, read_vectors, cache)`:
            `step` int32 `[B]` (steps done so far), the controller's state
            structure, the `AccessState` (each part reshaped to
            `[B, *shape]`), the read vectors `[B, R, W]` and, with a cache,
            the cache `[B, L, H]` (else None).
        """
        states = list(states)
        low, high = states[0], states[1]
        step = ops.cast(high[:, 0], "int32") * _STEP_BASE + ops.cast(low[:, 0], "int32")
        index = 2
        num_controller = len(self._controller_flat_sizes)
        controller = tree.pack_sequence_as(
            self._controller_state_size, states[index : index + num_controller]
        )
        index += num_controller
        access = []
        for shape in self._access_shapes():
            access.append(
                ops.reshape(ops.cast(states[index], "float32"), (-1,) + tuple(shape))
            )
            index += 1
        read_vectors = ops.reshape(
            ops.cast(states[index], "float32"),
            (-1, self.num_read_heads, self.word_size),
        )
        index += 1
        cache = None
        if self.cache_size is not None:
            cache = ops.reshape(
                states[index], (-1, self.cache_size, self._controller_flat_sizes[0])
            )
        return MemoryState(
            step, controller, self.AccessState(*access), read_vectors, cache
        )

    def pack_states(self, state, like):
        """A `MemoryState` as the flat list, with the shapes and dtypes of `like`."""
        low = ops.cast(ops.mod(state.step, _STEP_BASE), like[0].dtype)
        high = ops.cast(state.step // _STEP_BASE, like[1].dtype)
        flat = [low[:, None], high[:, None]]
        flat += tree.flatten(state.controller)
        flat += list(state.access)
        flat.append(state.read_vectors)
        if self.cache_size is not None:
            flat.append(state.cache)
        return [
            ops.cast(ops.reshape(value, ops.shape(old)), old.dtype)
            for value, old in zip(flat, like)
        ]

    # ------------------------------------------------------------------
    # One step: Algorithm 1.

    def call(self, inputs, states, training=False, builtin_forms=False):
        """One step, as `keras.layers.RNN` calls it.

        Args:
            inputs: `[B, input_dim]`, `x_t`.
            states: the flat states of `state_size`.
            training: passed to the controller.
            builtin_forms: whether the addressing takes its forms made of
                ops that every runtime has as a builtin (LiteRT's included;
                `keras_rda.ops.addressing`), as a streaming step model
                computes it (`inference_call`).

        Returns:
            `(y_t [B, output_size], new flat states)`.
        """
        validation.cell_states(self, self.state_size, states, inputs.shape[0], "states")
        state = self.unpack_states(states)
        step = state.step + 1  # 1-based index of this step
        schedule = self.write_schedule
        access = (
            True
            if schedule.always_accesses
            else schedule.is_access_step(step, self.memory_size)
        )
        attend = schedule.is_cache_step(step) if self.cache_size else False
        output, state = self.step(
            inputs,
            state,
            step,
            access=access,
            attend=attend,
            training=training,
            builtin_forms=builtin_forms,
        )
        return output, self.pack_states(state, states)

    def inference_call(self, inputs, states):
        """One step as a streaming step model computes it
        (`keras_rda.streaming.step_model`): not training, the addressing in
        builtin forms, so that its exports need builtin ops only. The same
        values as `call` to float32 rounding."""
        return self(inputs, states, training=False, builtin_forms=True)

    def step(
        self,
        inputs,
        state,
        step,
        access,
        attend,
        training=False,
        project=True,
        builtin_forms=False,
    ):
        """One step of Algorithm 1 on a `MemoryState`.

        Args:
            inputs: `[B, input_dim]`, `x_t`.
            state: the `MemoryState` after step `t - 1`.
            step: int32 `[B]`, `t` (1-based).
            access: whether to access memory: a Python bool (known when
                tracing: no conditional) or a bool tensor `[B]`.
            attend: whether to start the controller from the cache attention
                (Cached Uniform Writing), a Python bool or a bool tensor `[B]`.
            training: passed to the controller.
            project: whether to return `y_t`, or the `[o_t, r_t]` it is
                projected from (`output_features`; the layer projects a whole
                sequence of them at once).
            builtin_forms: whether the addressing takes its builtin forms
                (`call`).

        Returns:
            `(y_t [B, output_size], MemoryState after step t)`, or with
            `project=False` `([o_t, r_t] [B, H + R * W], ...)`.
        """
        controller_state, cache = self._cache_step(state, step, attend)
        controller_output, controller_state = self._controller_step(
            inputs, state.read_vectors, controller_state, training
        )
        access_state, read_vectors = self._scheduled_access(
            controller_output, state.access, state.read_vectors, access, builtin_forms
        )
        output = self.output_features(controller_output, self._flat_reads(read_vectors))
        if project:
            output = self.project(output)
        return output, MemoryState(
            step, controller_state, access_state, read_vectors, cache
        )

    def steps_without_access(self, inputs, state, start, training=False, unroll=False):
        """Steps `start + 1 .. start + S` of Algorithm 1 with no memory access.

        The values of `S` calls of `step(..., access=False, attend=False)`,
        in one loop. Between two accesses the read vectors are held
        (`r_t = r_{t-1}`), so each step is eq. 3-4,
        `o_t, h_t = controller([x_t, r], h_{t-1})`, and nothing else changes
        step by step: the loop carries the controller's state alone, on
        inputs `[x_t, r]` built for the whole stretch before it (for a
        `keras.layers.LSTMCell` controller the gates' `W_r r + b` instead,
        `held_reads_lstm`), and what depends on the stretch only through its
        hidden states is computed once after it: the output features
        `[o_t, r]` and, with Cached Uniform Writing, the cache (line 2).
        The `DNC` / `NTM` layers run the stretches between two writes so.

        Args:
            inputs: `[S, B, input_dim]`, the stretch's `x_t`, time-major
                (`S` known when tracing).
            state: the `MemoryState` after step `start`.
            start: a Python int, the steps done before the stretch (the
                cache slot of each step depends on it).
            training: passed to the controller.
            unroll: whether to unroll the loop over the `S` steps.

        Returns:
            `(features [S, B, H + R * W], MemoryState after step start + S)`:
            each step's `[o_t, r]` (`output_features`, to be projected to
            `y_t` by `project`).
        """
        length = inputs.shape[0]
        reads = self._controller_reads(state.read_vectors)
        # `tile`, not `broadcast_to`: its gradient needs only the constant
        # `length`, where `broadcast_to`'s needs the traced batch size, which
        # XLA cannot fold inside the interval loop's gradient.
        held = ops.tile(reads[None], (length, 1, 1))  # [S, B, R * W]
        first = tree.flatten(state.controller)
        keep_hidden = self.cache_size is not None
        step = lstm_step_with_held_reads(self.controller, reads)
        fused = step is not None  # then its output is h_t, the cache's too
        loop_inputs = inputs
        if not fused:
            step = self._controller_loop_step(keep_hidden, training)
            loop_inputs = self._controller_inputs(inputs, held)
        _, outputs, last = keras_compat.rnn(
            step,
            loop_inputs,
            first,
            unroll=unroll,
            input_length=length,
            time_major=True,
            return_all_outputs=True,
        )
        cache = state.cache
        if keep_hidden:
            if fused:
                hidden = outputs
            else:
                hidden_size = self._controller_flat_sizes[0]
                outputs, hidden = (
                    outputs[..., :-hidden_size],
                    outputs[..., -hidden_size:],
                )
            cache = self._cache_after(state.cache, start, first[0], hidden)
        features = self.output_features(outputs, held)
        controller = tree.pack_sequence_as(self._controller_state_size, list(last))
        return features, state._replace(
            step=state.step + length, controller=controller, cache=cache
        )

    def _controller_loop_step(self, keep_hidden, training):
        """`step([x_t, r], flat state) -> (o_t, new flat state)` (eq. 3-4)
        for the backend's loop; with `keep_hidden` the output is
        `[o_t, h_t]` (`h_t` for the cache)."""

        def step(step_inputs, flat):
            output, new = self._call_controller(
                step_inputs,
                tree.pack_sequence_as(self._controller_state_size, flat),
                training,
            )
            new = [ops.cast(n, old.dtype) for n, old in zip(tree.flatten(new), flat)]
            if keep_hidden:
                output = ops.concatenate([ops.cast(output, new[0].dtype), new[0]], -1)
            return output, new

        return step

    def _cache_after(self, cache, start, hidden_before, hidden):
        """The cache after steps `start + 1 .. start + S` without attention.

        Args:
            cache: `[B, L, H]`, the cache after step `start`.
            start: a Python int.
            hidden_before: `[B, H]`, `h_start`.
            hidden: `[S, B, H]`, `h_t` after each step (time-major).

        Returns:
            `[B, L, H]`: line 2 of Algorithm 1 for each step in turn, step `t`
            writing `h_{t-1}` to slot `_cache_slot(t)`.
        """
        entering = [hidden_before] + [hidden[i] for i in range(hidden.shape[0] - 1)]
        written = {}
        for i, previous in enumerate(entering):
            written[self._cache_slot(start + i + 1)] = previous
        slots = [
            written[j] if j in written else cache[:, j] for j in range(self.cache_size)
        ]
        return ops.stack([ops.cast(slot, cache.dtype) for slot in slots], axis=1)

    def _cache_slot(self, step):
        """Algorithm 1, line 2: step `t` appends `h_{t-1}` at slot
        `(t - 1) mod L` (`t` a Python int or int32 `[B]`)."""
        return (step - 1) % self.cache_size

    def _cache_step(self, state, step, attend):
        """Algorithm 1, lines 2-6: `C.append(h_{t-1})`; on a cache step the
        controller starts from `a_t` (eq. 9-10) instead of `h_{t-1}`.

        Returns:
            `(controller state to start from, cache [B, L, H] or None)`.
        """
        if self.cache_size is None:
            return state.controller, None
        flat = tree.flatten(state.controller)
        hidden = flat[0]
        position = ops.one_hot(
            self._cache_slot(step), self.cache_size, dtype=hidden.dtype
        )[:, :, None]
        cache = position * hidden[:, None, :] + (1.0 - position) * state.cache
        static = _static(attend)
        if static is False or self.cache_size == 1:
            return state.controller, cache
        reads = self._controller_reads(state.read_vectors)

        def attended():
            return ops.cast(self._cache_attention(cache, hidden, reads), hidden.dtype)

        if static:
            flat[0] = attended()
        else:
            flat[0] = ops.cond(
                ops.any(attend),
                lambda: _select(attend, attended(), hidden),
                lambda: hidden,
            )
        return tree.pack_sequence_as(self._controller_state_size, flat), cache

    def _cache_attention(self, cache, hidden, read_vectors):
        """Eq. 9-10: `a_t = sum_j softmax_j(v^T tanh(W h + U d_j + V r)) d_j`.

        Args:
            cache: `[B, L, H]`.
            hidden: `[B, H]`, `h_{t-1}`.
            read_vectors: `[B, R * W]`, `r_{t-1}`.

        Returns:
            `[B, H]`.
        """
        query = ops.matmul(hidden, self.cache_query_kernel) + ops.matmul(
            read_vectors, self.cache_read_kernel
        )
        # 2-D products only: TensorFlow multiplies `[B, L, H]` by a matrix
        # with a `tensordot` whose permutation is computed when the batch
        # size is unknown, and XLA cannot compile its gradient inside the
        # interval loop (`DNC(loop_intervals=True)`).
        hidden_size, key_size = self.cache_key_kernel.shape
        keys = ops.reshape(
            ops.matmul(ops.reshape(cache, (-1, hidden_size)), self.cache_key_kernel),
            (-1, self.cache_size, key_size),
        )  # [B, L, H]
        scores = ops.sum(
            ops.tanh(keys + query[:, None, :]) * self.cache_score_kernel[:, 0], axis=-1
        )  # [B, L]
        alpha = ops.softmax(scores, axis=-1)
        return ops.sum(alpha[:, :, None] * cache, axis=1)

    def _flat_reads(self, read_vectors):
        """`[B, R, W]` -> `[B, R * W]`."""
        return ops.reshape(read_vectors, (-1, self._read_size))

    def _controller_reads(self, read_vectors):
        """`r` as the controller reads it: `[B, R, W]` -> `[B, R * W]`, in the
        compute dtype."""
        return ops.cast(self._flat_reads(read_vectors), self.compute_dtype)

    def _controller_inputs(self, inputs, reads):
        """`[x_t, r]`: `[..., input_dim]` and `[..., R * W]` (from
        `_controller_reads`) -> `[..., input_dim + R * W]`."""
        return ops.concatenate([inputs, ops.cast(reads, inputs.dtype)], axis=-1)

    def _call_controller(self, controller_inputs, controller_state, training):
        """The controller on `[x_t, r]`: `(o_t, h_t)`, `h_t` structured as
        the controller's `state_size`."""
        output, new_state = self.controller(
            controller_inputs, controller_state, training=training
        )
        if not tree.is_nested(self._controller_state_size):
            new_state = tree.flatten(new_state)[0]
        return output, new_state

    def _controller_step(self, inputs, read_vectors, controller_state, training):
        """Eq. 3-4: `o_t, h_t = controller([x_t, r_{t-1}], h_{t-1})`."""
        controller_inputs = self._controller_inputs(
            inputs, self._controller_reads(read_vectors)
        )
        return self._call_controller(controller_inputs, controller_state, training)

    def _access_memory(self, controller_output, access_state, builtin_forms=False):
        """Lines 7-9: the interface `xi_t = W_xi o_t + b`, write, then read."""
        interface = self._clip(ops.cast(self.interface(controller_output), "float32"))
        return self._access(interface, access_state, builtin_forms)

    def _scheduled_access(
        self, controller_output, access_state, read_vectors, access, builtin_forms
    ):
        """The memory access on access steps; memory and `r_{t-1}` held else.

        Returns:
            `(AccessState, read vectors [B, R, W])`.
        """
        static = _static(access)
        if static is False:
            return access_state, read_vectors
        if static:
            return self._access_memory(controller_output, access_state, builtin_forms)
        held = list(access_state) + [read_vectors]

        def access_some():
            new_access, reads = self._access_memory(
                controller_output, access_state, builtin_forms
            )
            new = list(new_access) + [reads]
            return [_select(access, v, old) for v, old in zip(new, held)]

        updated = ops.cond(ops.any(access), access_some, lambda: held)
        return self.AccessState(*updated[:-1]), updated[-1]

    def output_features(self, controller_output, reads):
        """`[o_t, r_t]`, which the output `y_t = W_y [o_t, r_t] + b_y` projects.

        Args:
            controller_output: `[..., H]`, `o_t`.
            reads: `[..., R * W]`, `r_t` flat (`_flat_reads`).

        Returns:
            `[..., H + R * W]` in the compute dtype.
        """
        return ops.concatenate(
            [
                ops.cast(controller_output, self.compute_dtype),
                ops.cast(reads, self.compute_dtype),
            ],
            -1,
        )

    def project(self, features):
        """The output `y_t = W_y [o_t, r_t] + b_y`, clipped to `clip_value`.

        Args:
            features: `[..., H + R * W]`, from `output_features`.

        Returns:
            `[..., output_size]`.
        """
        return self._clip(self.output_projection(features))

    def _clip(self, values):
        """`values` clipped to `[-clip_value, clip_value]` (unchanged if None)."""
        if self.clip_value is None:
            return values
        return ops.clip(values, -self.clip_value, self.clip_value)

    # ------------------------------------------------------------------
    # Serialisation.

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "controller": keras.saving.serialize_keras_object(self.controller),
                "memory_size": self.memory_size,
                "word_size": self.word_size,
                "num_read_heads": self.num_read_heads,
                "write_schedule": keras.saving.serialize_keras_object(
                    self.write_schedule
                ),
                "output_units": self.output_units,
                "kernel_initializer": keras.initializers.serialize(
                    self.kernel_initializer
                ),
                "bias_initializer": keras.initializers.serialize(self.bias_initializer),
                "clip_value": self.clip_value,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["controller"] = keras.saving.deserialize_keras_object(
            config["controller"]
        )
        config["write_schedule"] = get_write_schedule(config["write_schedule"])
        return cls(**config)
