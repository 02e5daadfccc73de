"""`MemoryCell`: what `DNCCell` and `NTMCell` share.

A controller (any Keras RNN cell), an external memory accessed through an
interface vector, the write schedule, the Cached Uniform Writing cache and
attention, the flat state, the output projection and the config.
"""

import abc

import keras
from keras import ops
from keras import tree

from keras_rda.memory.write_schedule import get_write_schedule
from keras_rda.utils import validation

# The step counter is kept in two state entries (t = high * BASE + low) so
# that it stays an exact integer in float16/bfloat16 states (mixed precision).
_STEP_BASE = 128


def _select(condition, new, old):
    """Per sample `new` where `condition` `[B]` else `old` (exact either way).

    Written as `new * c + old * (1 - c)` rather than `ops.where`, whose
    broadcast inside a `cond` gives XLA a gradient with a non-constant shape.
    """
    c = ops.cast(condition, new.dtype)
    c = ops.reshape(c, (-1,) + (1,) * (len(new.shape) - 1))
    return new * c + old * (1.0 - c)


class MemoryCell(keras.layers.Layer, abc.ABC):
    """Base class of the memory cells: controller + memory + write schedule.

    One step (`x_t` the input, `r_{t-1}` the previous read vectors):

    1. controller: `o_t, h_t = controller([x_t, r_{t-1}], h_{t-1})` (eq. 3-4 of
       Le et al. 2019; for Cached Uniform Writing on a write step `h_{t-1}` is
       first replaced by the cache attention `a_t`, eq. 9-10);
    2. only on the schedule's access steps (`keras.ops.cond`, so the other
       steps compute none of it): the interface vector `xi_t = W_xi o_t + b`,
       the memory write (eq. 2) and the read `r_t` (eq. 1); otherwise memory,
       weightings and `r_t = r_{t-1}` are held;
    3. output: `y_t = W_y [o_t, r_t] + b_y`, a linear projection of the
       controller output and the read vectors (the DNC paper's
       `y_t = W_y [h_t; r_t]`; the same for the NTM).

    The memory-side arithmetic runs in float32 also under mixed precision.

    Subclasses define `_memory_shapes()` (an ordered dict of state names to
    shapes without the batch axis), `_interface_size()`, and
    `_access(interface, memory_states)` returning the new memory states and
    the read vectors `[B, R, W]`, plus `weightings(states)` for plots.
    """

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
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)

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
        self.cache_size = self.write_schedule.cache_size
        if not self.write_schedule.always_accesses:
            # TensorFlow's XLA cannot compile the gradient of the memory
            # `cond` inside the RNN loop with a dynamic batch size (inference
            # compiles); this makes `jit_compile="auto"` fall back to graph
            # mode instead of failing on GPU.
            self.supports_jit = False
        self.interface = keras.layers.Dense(
            self._interface_size(),
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            name="interface",
        )
        self.output_projection = keras.layers.Dense(
            self.output_size,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            name="output_projection",
        )

    # ------------------------------------------------------------------
    # Contract of the subclasses.

    @abc.abstractmethod
    def _memory_shapes(self):
        """Ordered dict: memory state name -> shape without the batch axis."""

    @abc.abstractmethod
    def _interface_size(self):
        """Size of the interface vector `xi_t`."""

    @abc.abstractmethod
    def _access(self, interface, memory_states):
        """Write then read: returns (new memory states dict, reads `[B, R, W]`)."""

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
        for shape in self._memory_shapes().values():
            size = 1
            for dim in shape:
                size *= dim
            sizes.append(size)
        sizes.append(self._read_size)
        if self.cache_size is not None:
            sizes.append(self.cache_size * self._controller_flat_sizes[0])
        return sizes

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if not self.controller.built:
            self.controller.build((None, input_dim + self._read_size))
        self.interface.build((None, self._controller_output_size))
        self.output_projection.build(
            (None, self._controller_output_size + self._read_size)
        )
        if self.cache_size is not None:
            hidden = self._controller_flat_sizes[0]
            self.cache_query_kernel = self.add_weight(
                name="cache_query_kernel",
                shape=(hidden, hidden),
                initializer=self.kernel_initializer,
            )
            self.cache_key_kernel = self.add_weight(
                name="cache_key_kernel",
                shape=(hidden, hidden),
                initializer=self.kernel_initializer,
            )
            self.cache_read_kernel = self.add_weight(
                name="cache_read_kernel",
                shape=(self._read_size, hidden),
                initializer=self.kernel_initializer,
            )
            self.cache_score_kernel = self.add_weight(
                name="cache_score_kernel",
                shape=(hidden, 1),
                initializer=self.kernel_initializer,
            )
        self.built = True

    def get_initial_state(self, batch_size=None):
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
        states = [ops.zeros((batch_size, 1), dtype=dtype)] * 2
        states += [ops.cast(s, dtype) for s in controller_states]
        states += [
            ops.zeros((batch_size, size), dtype=dtype)
            for size in self.state_size[len(states) :]
        ]
        return states

    # ------------------------------------------------------------------
    # State packing.

    def unpack_states(self, states):
        """Split the flat state list into its named parts.

        Returns:
            A dict with `"step"` (int32 `[B]`, steps done so far),
            `"controller"` (the controller's state structure), one entry per
            memory state (float32, reshaped to `[B, *shape]`),
            `"read_vectors"` (float32 `[B, R, W]`) and, with a cache,
            `"cache"` (`[B, L, H]`).
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
        parts = {"step": step, "controller": controller}
        for name, shape in self._memory_shapes().items():
            parts[name] = ops.reshape(
                ops.cast(states[index], "float32"), (-1,) + tuple(shape)
            )
            index += 1
        parts["read_vectors"] = ops.reshape(
            ops.cast(states[index], "float32"),
            (-1, self.num_read_heads, self.word_size),
        )
        index += 1
        if self.cache_size is not None:
            parts["cache"] = ops.reshape(
                states[index], (-1, self.cache_size, self._controller_flat_sizes[0])
            )
        return parts

    def _pack_states(self, parts, like):
        low = ops.cast(ops.mod(parts["step"], _STEP_BASE), like[0].dtype)
        high = ops.cast(parts["step"] // _STEP_BASE, like[1].dtype)
        flat = [low[:, None], high[:, None]]
        flat += tree.flatten(parts["controller"])
        for name in self._memory_shapes():
            flat.append(parts[name])
        flat.append(parts["read_vectors"])
        if self.cache_size is not None:
            flat.append(parts["cache"])
        return [
            ops.cast(ops.reshape(value, ops.shape(old)), old.dtype)
            for value, old in zip(flat, like)
        ]

    # ------------------------------------------------------------------
    # One step.

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
        keys = ops.matmul(cache, self.cache_key_kernel)
        scores = ops.matmul(ops.tanh(keys + query[:, None, :]), self.cache_score_kernel)
        alpha = ops.softmax(scores[:, :, 0], axis=-1)
        return ops.sum(alpha[:, :, None] * cache, axis=1)

    def call(self, inputs, states, training=False):
        like = list(states)
        parts = self.unpack_states(like)
        step = parts["step"] + 1  # 1-based index of this step
        schedule = self.write_schedule
        prev_reads = ops.reshape(parts["read_vectors"], (-1, self._read_size))
        prev_reads_compute = ops.cast(prev_reads, self.compute_dtype)

        controller_flat = tree.flatten(parts["controller"])
        if self.cache_size is not None:
            # Algorithm 1, line 2: C.append(h_{t-1}) at position (t - 1) mod L.
            hidden = controller_flat[0]
            cache = parts["cache"]
            position = ops.one_hot(
                ops.mod(step - 1, self.cache_size), self.cache_size, dtype=cache.dtype
            )[:, :, None]
            cache = position * hidden[:, None, :] + (1.0 - position) * cache
            parts["cache"] = cache
            # Lines 3-6: on a write step the controller starts from a_t.
            attend = schedule.is_cache_step(step)
            if self.cache_size > 1:
                controller_flat[0] = ops.cond(
                    ops.any(attend),
                    lambda: _select(
                        attend,
                        ops.cast(
                            self._cache_attention(cache, hidden, prev_reads_compute),
                            hidden.dtype,
                        ),
                        hidden,
                    ),
                    lambda: hidden,
                )
        controller_states = tree.pack_sequence_as(
            self._controller_state_size, controller_flat
        )

        controller_inputs = ops.concatenate(
            [inputs, ops.cast(prev_reads_compute, inputs.dtype)], axis=-1
        )
        controller_output, new_controller = self.controller(
            controller_inputs, controller_states, training=training
        )
        if not tree.is_nested(self._controller_state_size):
            new_controller = tree.flatten(new_controller)[0]
        parts["controller"] = new_controller

        memory_names = list(self._memory_shapes())
        held = [parts[name] for name in memory_names] + [parts["read_vectors"]]

        def access():
            interface = ops.cast(self.interface(controller_output), "float32")
            new_memory, reads = self._access(
                interface, {name: parts[name] for name in memory_names}
            )
            return [new_memory[name] for name in memory_names] + [reads]

        if schedule.always_accesses:
            updated = access()
        else:
            accessing = schedule.is_access_step(step, self.memory_size)

            def access_some():
                new = access()
                return [_select(accessing, v, old) for v, old in zip(new, held)]

            updated = ops.cond(ops.any(accessing), access_some, lambda: held)
        for name, value in zip(memory_names, updated[:-1]):
            parts[name] = value
        parts["read_vectors"] = updated[-1]
        parts["step"] = step

        reads = ops.cast(
            ops.reshape(updated[-1], (-1, self._read_size)), self.compute_dtype
        )
        output = self.output_projection(
            ops.concatenate(
                [ops.cast(controller_output, self.compute_dtype), reads], -1
            )
        )
        return output, self._pack_states(parts, like)

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
