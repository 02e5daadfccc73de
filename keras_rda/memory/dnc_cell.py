"""The Differentiable Neural Computer as a Keras RNN cell."""

import collections

import keras
from keras import ops

from keras_rda.memory.base_memory_cell import BaseMemoryCell
from keras_rda.ops import addressing
from keras_rda.utils import validation
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class DNCCell(BaseMemoryCell):
    """Differentiable Neural Computer (Graves et al. 2016) around any RNN cell.

    The controller receives `[x_t, r_{t-1}]` (the input and the previous read
    vectors, flattened). Its output `o_t` gives the interface vector
    `xi_t = W_xi o_t + b_xi`, split into (DNC paper, Methods)

    - read keys `k^r` `[R, W]` and strengths `beta^r = oneplus(.)` `[R]`,
    - write keys `k^w` `[Hw, W]` and strengths `beta^w = oneplus(.)` `[Hw]`,
    - erase vectors `e = sigmoid(.)` `[Hw, W]`, write vectors `v` `[Hw, W]`,
    - free gates `f = sigmoid(.)` `[R]`, allocation gates `g^a` and write gates
      `g^w = sigmoid(.)` `[Hw]`,
    - read modes `pi = softmax(.)` `[R, 2 Hw + 1]` (backward per write head,
      forward per write head, content).

    A memory access, in the order of DeepMind's `dnc`: usage
    `u_t = (u_{t-1} + w^w_{t-1} - u_{t-1} w^w_{t-1}) psi_t` with retention
    `psi_t = prod_r (1 - f_r w^r_{t-1})`; the sort-based allocation weighting
    `a_t` (one head after another); write weights
    `w^w = g^w (g^a a + (1 - g^a) C(M_{t-1}, k^w, beta^w))`; erase and write
    `M_t = M_{t-1} (1 - w^w e^T) + w^w v^T`; the temporal link matrix `L_t`
    and precedence `p_t`; read weights
    `w^r = pi_b L^T w^r_{t-1} + pi_f L w^r_{t-1} + pi_c C(M_t, k^r, beta^r)`;
    reads `r_t = M_t^T w^r`. The cell output is
    `y_t = W_y [o_t, r_t] + b_y` (the DNC's `y_t = W_y [h_t; r_t]`).

    The write schedule decides on which steps this access happens (see
    `keras_rda.memory.get_write_schedule`); on the other steps no interface,
    addressing or memory update is computed (`keras.ops.cond` on the step),
    and memory, usage, link, precedence, weightings and `r_t = r_{t-1}` are
    held, so the memory behaves as a DNC run over the access steps only.

    Args:
        controller: a Keras RNN cell (`keras.layers.LSTMCell(100)`,
            `GRUCell`, `SimpleRNNCell`, `keras_rda.RDACell`, ...).
        memory_size: positive int `N` (the paper's `D`), memory slots.
        word_size: positive int `W`, the width of a slot.
        num_read_heads: positive int `R`.
        num_write_heads: positive int `Hw`.
        write_schedule: a `WriteSchedule` or `"regular"` (default); see
            `RegularWriting`, `UniformWriting`, `CachedUniformWriting`,
            `RandomWriting`.
        output_units: size of `y_t`; defaults to the controller's output size.
        kernel_initializer: initializer of the interface, output and cache
            attention kernels.
        bias_initializer: initializer of the interface and output biases.
        clip_value: None (default) or a positive float: the interface vector
            `xi_t` and the output `y_t` are clipped to
            `[-clip_value, clip_value]`, as in the UW paper authors' code
            (20) and DeepMind's `dnc` (its `clip_value`); the paper's text
            states no clipping.
        **kwargs: `keras.layers.Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `[batch, input_dim]`, one step.
        states: the flat state list (see State).
        training: passed to the controller.

    State (flat, in this order; sizes are `state_size`; inside the cell a
    `MemoryState` with `DNCCell.AccessState`, see `BaseMemoryCell`):
        step counter (two entries, `t = high * 128 + low`); the controller's
        states; memory `[batch, N * W]`; usage `[batch, N]`; link
        `[batch, Hw * N * N]`; precedence `[batch, Hw * N]`; read weights
        `[batch, R * N]`; write weights `[batch, Hw * N]`; read vectors
        `[batch, R * W]`; with `CachedUniformWriting(L)` the cache
        `[batch, L * H]` (`H` the controller's first state size).

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its outputs
        from that step on may become non-finite, its earlier outputs and
        the other samples' do not change. The memory side runs in float32
        under mixed precision. Inside `keras.layers.RNN` the cell never
        sees the sequence length, so its write schedule is not checked
        against it: the `DNC` layer checks it (see
        `keras_rda.WriteSchedule`).

    Example:

    ```python
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(100), memory_size=4, word_size=16,
        write_schedule=keras_rda.memory.UniformWriting(
            sequence_length=50, encoding_steps=50))
    model = keras.Sequential([
        keras.Input((100, 11)),
        keras.layers.RNN(cell, return_sequences=True),
        keras.layers.Dense(11),
    ])
    ```

    Reference:
        Graves et al. 2016, "Hybrid computing using a neural network with
        dynamic external memory", Nature 538, Methods; Le, Tran & Venkatesh
        2019, "Learning to Remember More with Less Memorization", eq. 1-4, 8-10
        and Algorithm 1.
    """

    #: The memory side of the state (in the flat state's order).
    AccessState = collections.namedtuple(
        "DNCAccessState",
        ("memory", "usage", "link", "precedence", "read_weights", "write_weights"),
    )

    def __init__(
        self,
        controller,
        memory_size,
        word_size,
        num_read_heads=1,
        num_write_heads=1,
        write_schedule="regular",
        output_units=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        clip_value=None,
        **kwargs,
    ):
        memory_arguments = constructor_arguments(locals(), ["num_write_heads"])
        super().__init__(**memory_arguments, **kwargs)
        self.num_write_heads = validation.positive_int(
            "num_write_heads", num_write_heads
        )

    def _access_shapes(self):
        n, w = self.memory_size, self.word_size
        r, h = self.num_read_heads, self.num_write_heads
        return self.AccessState(
            memory=(n, w),
            usage=(n,),
            link=(h, n, n),
            precedence=(h, n),
            read_weights=(r, n),
            write_weights=(h, n),
        )

    def _interface_split(self):
        w, r, h = self.word_size, self.num_read_heads, self.num_write_heads
        return collections.OrderedDict(
            [
                ("read_keys", (r, w)),
                ("read_strengths", (r,)),
                ("write_keys", (h, w)),
                ("write_strengths", (h,)),
                ("erase_vectors", (h, w)),
                ("write_vectors", (h, w)),
                ("free_gates", (r,)),
                ("allocation_gates", (h,)),
                ("write_gates", (h,)),
                ("read_modes", (r, 2 * h + 1)),
            ]
        )

    def _interface_size(self):
        total = 0
        for shape in self._interface_split().values():
            size = 1
            for dim in shape:
                size *= dim
            total += size
        return total

    def split_interface(self, interface):
        """Split `xi_t` `[B, interface_size]` into its named, activated parts."""
        parts = {}
        start = 0
        for name, shape in self._interface_split().items():
            size = 1
            for dim in shape:
                size *= dim
            parts[name] = ops.reshape(interface[:, start : start + size], (-1,) + shape)
            start += size
        for name in ("read_strengths", "write_strengths"):
            parts[name] = addressing.oneplus(parts[name])
        for name in ("erase_vectors", "free_gates", "allocation_gates", "write_gates"):
            parts[name] = ops.sigmoid(parts[name])
        parts["read_modes"] = ops.softmax(parts["read_modes"], axis=-1)
        return parts

    def _access(self, interface, access_state, builtin_forms=False):
        xi = self.split_interface(interface)
        memory = access_state.memory
        prev_read_weights = access_state.read_weights

        # Write: usage, allocation, content, write weights.
        usage = addressing.update_usage(
            access_state.usage,
            access_state.write_weights,
            xi["free_gates"],
            prev_read_weights,
        )
        allocation = addressing.write_allocation_weights(
            usage,
            xi["allocation_gates"] * xi["write_gates"],
            self.num_write_heads,
            builtin_forms=builtin_forms,
        )
        write_content = addressing.content_weights(
            memory, xi["write_keys"], xi["write_strengths"]
        )
        write_weights = addressing.dnc_write_weights(
            allocation, write_content, xi["allocation_gates"], xi["write_gates"]
        )
        memory = addressing.erase_and_write(
            memory, write_weights, xi["erase_vectors"], xi["write_vectors"]
        )

        # Temporal links.
        link = addressing.update_link(
            access_state.link, access_state.precedence, write_weights
        )
        precedence = addressing.update_precedence(
            access_state.precedence, write_weights
        )

        # Read.
        read_content = addressing.content_weights(
            memory, xi["read_keys"], xi["read_strengths"]
        )
        forward = addressing.directional_read_weights(link, prev_read_weights, True)
        backward = addressing.directional_read_weights(link, prev_read_weights, False)
        read_weights = addressing.dnc_read_weights(
            read_content, forward, backward, xi["read_modes"]
        )
        reads = addressing.read_memory(memory, read_weights)
        new_state = self.AccessState(
            memory=memory,
            usage=usage,
            link=link,
            precedence=precedence,
            read_weights=read_weights,
            write_weights=write_weights,
        )
        return new_state, reads

    def weightings(self, states):
        """The write and read weightings held in `states`.

        Returns:
            A dict with `"write"` `[B, Hw, N]` and `"read"` `[B, R, N]`.
        """
        access = self.unpack_states(states).access
        return {"write": access.write_weights, "read": access.read_weights}

    def get_config(self):
        config = super().get_config()
        config["num_write_heads"] = self.num_write_heads
        return config
