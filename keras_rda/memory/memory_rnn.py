"""`MemoryRNN`: what the `DNC` and `NTM` sequence layers share.

The static schedule path: when the sequence length is known when tracing and
the sequence starts from the initial state, every step's schedule decision
is a Python bool, so the layer runs the controller as a plain recurrent loop
between two writes (read vectors held, no memory work) and accesses memory
once at the end of each stretch, with no conditional anywhere: it trains
under XLA, and pays for memory only on the access steps.
"""

import keras
import numpy as np
from keras import ops

from keras_rda.layers.cell_rnn import CellRNN
from keras_rda.utils import keras_compat

#: Stretches up to this many steps are unrolled when traced; longer ones run
#: in the backend's loop (`keras.src.backend.rnn`). Loops keep the program
#: small: under XLA on a CPU, unrolling the stretches of T = 100 made a DNC+UW
#: training step 4x slower than looping them, and its compilation minutes
#: long (`benchmarks/memory_speed.py`, docs/memory.md "Speed").
UNROLL_LIMIT = 1


def schedule_runs(access, attend):
    """Split the steps into runs with the same (access, attend) decision.

    Args:
        access: bool NumPy array `[T]`, whether step `t = i + 1` accesses.
        attend: bool NumPy array `[T]`, whether it starts from the cache
            attention.

    Returns:
        A list of `(start, stop, access, attend)` with Python ints and bools:
        the steps `start + 1 .. stop` (1-based) all decide alike.
    """
    runs = []
    start = 0
    for i in range(1, len(access) + 1):
        if i == len(access) or access[i] != access[start] or attend[i] != attend[start]:
            runs.append((start, i, bool(access[start]), bool(attend[start])))
            start = i
    return runs


class MemoryRNN(CellRNN):
    """`keras.layers.RNN` over a `MemoryCell`, with the static schedule path.

    The outputs, states and gradients are those of `keras.layers.RNN(cell)`
    (the same `MemoryCell.step` computes every step). The static path is
    taken when the time axis is known (in the batch, or declared by the
    model's `keras.Input((T, features))`), no mask is given, `go_backwards` is
    False and the sequence starts from the initial state (no `initial_state`
    argument, not stateful); otherwise the layer runs the cell's
    conditional path as `keras.layers.RNN` does.

    Subclasses (`DNC`, `NTM`) only build their cell.
    """

    def __init__(self, cell, **kwargs):
        super().__init__(cell, **kwargs)
        # The cell's conditional path (inside `keras.layers.RNN`) has no XLA
        # gradient; this layer's static schedule path has no conditional.
        # (A call with an unknown length under XLA uses the conditional.)
        self.cell.supports_jit = True

    def build(self, sequences_shape, initial_state_shape=None):
        # The length the model declares (`keras.Input((T, features))`): used
        # when a traced batch has an unknown time axis (a `tf.data` stream).
        self._declared_length = tuple(sequences_shape)[1]
        super().build(sequences_shape, initial_state_shape)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        self._starts_fresh = initial_state is None and not self.stateful
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def uses_static_schedule(self, sequences, mask=None):
        """Whether a call on `sequences` takes the static schedule path."""
        return (
            self._length(sequences) is not None
            and mask is None
            and not self.go_backwards
            and getattr(self, "_starts_fresh", True)
        )

    def _length(self, sequences):
        return sequences.shape[1] or getattr(self, "_declared_length", None)

    def inner_loop(self, sequences, initial_state, mask, training=False):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if not self.uses_static_schedule(sequences, mask):
            return super().inner_loop(sequences, initial_state, mask, training)
        cell = self.cell
        length = self._length(sequences)
        if sequences.shape[1] is None:
            features = sequences.shape[2] or ops.shape(sequences)[2]
            sequences = ops.reshape(
                sequences, (ops.shape(sequences)[0], length, features)
            )
        schedule = cell.write_schedule
        access = schedule.access_pattern(length, cell.memory_size)
        attend = schedule.cache_pattern(length)
        like = list(initial_state)
        state = cell.unpack_states(like)
        round_trip = any(
            keras.backend.standardize_dtype(s.dtype) != "float32" for s in like
        )
        pieces = []
        for start, stop, accesses, attends in schedule_runs(access, attend):
            inputs = sequences[:, start:stop]
            if stop - start > UNROLL_LIMIT:
                outputs, state = self._loop(
                    inputs, state, like, accesses, attends, training
                )
                pieces.append(outputs)
                continue
            for t in range(stop - start):
                output, state = cell.step(
                    inputs[:, t],
                    state,
                    state.step + 1,
                    access=accesses,
                    attend=attends,
                    training=training,
                )
                if round_trip:  # the state's dtype between steps, as the cell
                    state = cell.unpack_states(cell.pack_states(state, like))
                pieces.append(output[:, None])
        outputs = ops.concatenate(pieces, axis=1) if len(pieces) > 1 else pieces[0]
        return outputs[:, -1], outputs, cell.pack_states(state, like)

    def _loop(self, inputs, state, like, access, attend, training):
        """A long run of alike steps in the backend's loop."""
        cell = self.cell

        def step(step_inputs, states):
            current = cell.unpack_states(states)
            output, new = cell.step(
                step_inputs,
                current,
                current.step + 1,
                access=access,
                attend=attend,
                training=training,
            )
            return output, cell.pack_states(new, states)

        _, outputs, states = keras_compat.rnn(
            step,
            inputs,
            cell.pack_states(state, like),
            unroll=self.unroll,
            input_length=inputs.shape[1],
            return_all_outputs=True,
        )
        return outputs, cell.unpack_states(list(states))

    def reset_state(self):
        """Resets a stateful layer to the cell's initial state."""
        if self.states is None:
            return
        batch_size = self.states[0].shape[0]
        for variable, value in zip(
            self.states, self.cell.get_initial_state(batch_size)
        ):
            variable.assign(ops.cast(value, variable.dtype))

    def access_steps(self, num_steps):
        """1-based steps on which a fresh sequence of `num_steps` accesses memory."""
        pattern = self.cell.write_schedule.access_pattern(
            num_steps, self.cell.memory_size
        )
        return np.flatnonzero(pattern) + 1
