"""The Neural Turing Machine as a Keras RNN cell."""

import collections

import keras
from keras import ops

from keras_rda.memory.base_memory_cell import BaseMemoryCell
from keras_rda.ops import addressing
from keras_rda.utils import validation
from keras_rda.utils.arguments import constructor_arguments


def _start_on_first_slot(weights):
    """All-zero weightings `[B, H, N]` (the initial state) -> slot 0.

    A weighting produced by the addressing sums to one, so zero only stands
    for the start. One-hot initial weightings break the symmetry of the zero
    memory: with uniform ones every slot would be addressed alike forever
    (content, interpolation, shift and sharpening all keep a uniform
    weighting uniform). Keeping the start as zero in the state makes the
    all-zero state (what `keras.layers.RNN.reset_state` restores) the true
    initial state.
    """
    empty = ops.cast(
        ops.all(ops.equal(weights, 0.0), axis=-1, keepdims=True), weights.dtype
    )
    first = ops.one_hot(0, weights.shape[-1], dtype=weights.dtype)  # [N]
    return weights * (1.0 - empty) + first * empty


@keras.saving.register_keras_serializable(package="keras_rda")
class NTMCell(BaseMemoryCell):
    """Neural Turing Machine (Graves et al. 2014) around any RNN cell.

    One write head and `R` read heads. The controller receives
    `[x_t, r_{t-1}]`; its output `o_t` gives the interface vector
    `xi_t = W_xi o_t + b_xi`, with for every head a key `k` `[W]`, a key
    strength `beta = softplus(.)`, an interpolation gate `g = sigmoid(.)`, a
    shift distribution `s = softmax(.)` over `-S..S`, and a sharpening
    exponent `gamma = oneplus(.) >= 1`; the write head also has an erase
    vector `e = sigmoid(.)` and an add vector `a` `[W]`.

    Addressing (NTM section 3.3): content `w^c = softmax(beta K(k, M))`
    (eq. 5-6), interpolation `w^g = g w^c + (1 - g) w_{t-1}` (eq. 7), circular
    shift `w~[i] = sum_j w^g[j] s[i - j]` (eq. 8), sharpening
    `w = w~^gamma / sum w~^gamma` (eq. 9). The write head erases and adds
    (eq. 3-4), then the read heads read the written memory (eq. 2), the order
    of Algorithm 1 of Le et al. 2019. Output `y_t = W_y [o_t, r_t] + b_y`.

    Like `DNCCell`, the write schedule decides on which steps this happens;
    other steps do no memory work and hold memory, weightings and reads.

    Args:
        controller: a Keras RNN cell.
        memory_size: positive int `N`, memory slots.
        word_size: positive int `W`.
        num_read_heads: positive int `R`.
        write_schedule: a `WriteSchedule` or alias (default `"regular"`).
        shift_range: non-negative int `S`; shifts `-S..S` (default 1).
        output_units: size of `y_t`; defaults to the controller's output size.
        kernel_initializer: initializer of the interface, output and cache
            attention kernels.
        bias_initializer: initializer of the interface and output biases.
        clip_value: None (default) or a positive float: the interface vector
            `xi_t` and the output `y_t` are clipped to
            `[-clip_value, clip_value]`, as in the UW paper authors' code
            (20) and DeepMind's `dnc` (its `clip_value`); the paper's text
            states no clipping.
        **kwargs: `keras.layers.Layer` arguments.

    Call arguments:
        inputs: `[batch, input_dim]`, one step.
        states: the flat state list (see State).
        training: passed to the controller.

    State (flat, in this order; inside the cell a `MemoryState` with
    `NTMCell.AccessState`): step counter (two entries); the controller's
    states; memory `[batch, N * W]`; read weights `[batch, R * N]`; write
    weights `[batch, N]`; read vectors `[batch, R * W]`; with
    `CachedUniformWriting(L)` the cache `[batch, L * H]`. The initial state is
    all zero; zero weightings stand for weightings on slot 0 (a uniform
    start would keep every slot addressed alike), so `reset_state()` of a
    stateful `keras.layers.RNN` restarts exactly where a fresh one starts.

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its outputs
        from that step on may become non-finite, its earlier outputs and
        the other samples' do not change. The memory side runs in float32
        under mixed precision. Inside `keras.layers.RNN` the cell never
        sees the sequence length, so its write schedule is not checked
        against it: the `NTM` layer checks it (see
        `keras_rda.WriteSchedule`).

    Example:

    ```python
    cell = keras_rda.NTMCell(keras.layers.LSTMCell(100), memory_size=4,
                             word_size=16, write_schedule="regular")
    layer = keras.layers.RNN(cell, return_sequences=True)
    ```

    Reference:
        Graves, Wayne & Danihelka 2014, "Neural Turing Machines",
        arXiv:1410.5401, section 3; Le, Tran & Venkatesh 2019, section 3.1.
    """

    #: The memory side of the state (in the flat state's order).
    AccessState = collections.namedtuple(
        "NTMAccessState", ("memory", "read_weights", "write_weights")
    )

    def __init__(
        self,
        controller,
        memory_size,
        word_size,
        num_read_heads=1,
        write_schedule="regular",
        shift_range=1,
        output_units=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        clip_value=None,
        **kwargs,
    ):
        memory_arguments = constructor_arguments(locals(), ["shift_range"])
        super().__init__(**memory_arguments, **kwargs)
        self.shift_range = validation.non_negative_int("shift_range", shift_range)
        if 2 * self.shift_range + 1 > self.memory_size:
            raise ValueError(
                "Received an invalid value for argument `shift_range`, expected "
                f"2 * shift_range + 1 <= memory_size = {self.memory_size}, got "
                f"{shift_range!r}"
            )

    @property
    def num_write_heads(self):
        return 1

    def _access_shapes(self):
        n, w, r = self.memory_size, self.word_size, self.num_read_heads
        return self.AccessState(
            memory=(n, w), read_weights=(r, n), write_weights=(1, n)
        )

    def _head_size(self):
        # key, strength, gate, shifts, gamma
        return self.word_size + 3 + 2 * self.shift_range + 1

    def _interface_size(self):
        heads = self.num_read_heads + 1
        return heads * self._head_size() + 2 * self.word_size

    def _address(self, memory, head, prev_weights):
        """Content + location addressing of heads `[B, H, head_size]`."""
        w = self.word_size
        num_shifts = 2 * self.shift_range + 1
        key = head[:, :, :w]
        strength = ops.softplus(head[:, :, w])
        gate = ops.sigmoid(head[:, :, w + 1])
        shifts = ops.softmax(head[:, :, w + 2 : w + 2 + num_shifts], axis=-1)
        gamma = addressing.oneplus(head[:, :, w + 2 + num_shifts])
        weights = addressing.content_weights(memory, key, strength)
        weights = addressing.interpolate(weights, prev_weights, gate)
        weights = addressing.circular_shift(weights, shifts)
        return addressing.sharpen(weights, gamma)

    def _access(self, interface, access_state, builtin_forms=False):
        del builtin_forms  # the NTM's addressing is made of builtin ops only
        memory = access_state.memory
        head_size = self._head_size()
        heads = self.num_read_heads + 1
        head_params = ops.reshape(
            interface[:, : heads * head_size], (-1, heads, head_size)
        )
        rest = interface[:, heads * head_size :]
        erase = ops.sigmoid(rest[:, None, : self.word_size])
        add = rest[:, None, self.word_size :]

        write_weights = self._address(
            memory, head_params[:, :1], _start_on_first_slot(access_state.write_weights)
        )
        memory = addressing.erase_and_write(memory, write_weights, erase, add)
        read_weights = self._address(
            memory, head_params[:, 1:], _start_on_first_slot(access_state.read_weights)
        )
        reads = addressing.read_memory(memory, read_weights)
        new_state = self.AccessState(
            memory=memory, read_weights=read_weights, write_weights=write_weights
        )
        return new_state, reads

    def weightings(self, states):
        """The write `[B, 1, N]` and read `[B, R, N]` weightings in `states`
        (the all-zero start shown as what it stands for, slot 0)."""
        access = self.unpack_states(states).access
        return {
            "write": _start_on_first_slot(access.write_weights),
            "read": _start_on_first_slot(access.read_weights),
        }

    def get_config(self):
        config = super().get_config()
        config["shift_range"] = self.shift_range
        return config
