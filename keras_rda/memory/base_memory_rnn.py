"""`BaseMemoryRNN`: what the `DNC` and `NTM` sequence layers share.

The static schedule path: when the sequence length is known when tracing and
the sequence starts from the initial state, every step's schedule decision
is a Python bool, so the layer runs the controller as a plain recurrent loop
between two writes (read vectors held, no memory work) and accesses memory
once at the end of each stretch, with no conditional anywhere: it trains
under XLA, and pays for memory only on the access steps. The steps
themselves are the cell's (`BaseMemoryCell.step` and
`BaseMemoryCell.steps_without_access`); this module only schedules them.
"""

import keras
import numpy as np
from keras import ops

from keras_rda.layers.base_rnn import BaseRNN
from keras_rda.utils import keras_compat
from keras_rda.utils import validation

#: Stretches up to this many steps are unrolled when traced; longer ones run
#: in the backend's loop (`keras.src.backend.rnn`). Loops keep the program
#: small: under XLA (on a CPU) they compile and run faster than unrolled
#: stretches (`benchmarks/memory_speed.py`, its `DNC+UW unrolled` model;
#: records under `results/benchmarks/`).
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


def repeated_block(runs, cache_size=None):
    """The runs' repeating prefix: `(block, repeats)`.

    `runs` starts with `block` repeated `repeats` times (the shortest block
    that repeats most often; with a cache, one whose length in steps is a
    multiple of `cache_size`, so every repeat fills the same slots).
    """
    shapes = [(stop - start, a, b) for start, stop, a, b in runs]
    best = (runs, 1)
    for size in range(1, len(runs) // 2 + 1):
        block = shapes[:size]
        period = sum(n for n, _, _ in block)
        if cache_size and period % cache_size:
            continue
        repeats = 1
        while shapes[repeats * size : (repeats + 1) * size] == block:
            repeats += 1
        if repeats > best[1]:
            best = (runs[:size], repeats)
    return best


class BaseMemoryRNN(BaseRNN):
    """`keras.layers.RNN` over a `BaseMemoryCell`, with the static schedule path.

    The outputs, states and gradients are those of `keras.layers.RNN(cell)`:
    both paths compute the steps with the cell. The conditional path
    (`keras.layers.RNN`'s loop over `cell.call`) calls `BaseMemoryCell.step`
    with the schedule's decisions as tensors; the static path calls it with
    the decisions as Python bools on the access steps, and
    `BaseMemoryCell.steps_without_access` for each stretch between two
    writes. The static path is taken when the time axis is known (in the
    batch, or declared by the model's `keras.Input((T, features))`), no mask
    is given, `go_backwards` is False and the sequence starts from the
    initial state (no `initial_state` argument, not stateful); otherwise the
    layer runs the conditional path.

    A call from the initial state checks the write schedule against the
    input's length (`WriteSchedule.check_length`): the batch's time axis, or
    the model's declared `keras.Input((T, features))`; a schedule made for
    another length, or one that would never access memory, raises a
    `ValueError`.

    The layer uses the cell's public interface only: `write_schedule`,
    `memory_size`, `cache_size`, `unpack_states` / `pack_states`, `step`,
    `steps_without_access`, `project` and `get_initial_state`. Subclasses
    (`DNC`, `NTM`) only build their cell.
    """

    def __init__(self, cell, loop_intervals=False, **kwargs):
        super().__init__(cell, **kwargs)
        self.loop_intervals = validation.boolean("loop_intervals", loop_intervals)
        # The cell's conditional path (inside `keras.layers.RNN`) has no XLA
        # gradient; this layer's static schedule path has no conditional.
        # (A call with an unknown length under XLA uses the conditional.)
        self.cell.supports_jit = True

    def build(self, sequences_shape, initial_state_shape=None):
        # The length the model declares (`keras.Input((T, features))`): used
        # when a traced batch has an unknown time axis (a `tf.data` stream).
        self._declared_length = tuple(sequences_shape)[1]
        super().build(sequences_shape, initial_state_shape)
        starts_fresh = initial_state_shape is None and not self.stateful
        if starts_fresh and self._declared_length != 0:
            # As early as the model is made (see `call`).
            self.cell.write_schedule.check_length(
                self._declared_length, self.cell.memory_size
            )

    def call(self, sequences, initial_state=None, mask=None, training=False):
        self._starts_fresh = initial_state is None and not self.stateful
        validation.sequence_steps(sequences)
        if self._starts_fresh:
            # The schedule against the input's length, where known (a call
            # that goes on from a state counts its steps from there).
            self.cell.write_schedule.check_length(
                self._length(sequences), self.cell.memory_size
            )
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
        # Time-major throughout: each piece is a slice of `steps`, so the
        # batch/time swaps (and their gradients) happen once per call, not
        # once per stretch. Each piece comes back as `y_t`, projected inside
        # the loop that makes it: a loop's per-step outputs are what its
        # gradient copies (on TensorFlow under XLA the backward loop copies
        # the whole `[S, B, width]` output gradient every step, O(S^2)), so
        # they are `output_size` wide, not `[o_t, r_t]`'s H + R * W.
        steps = ops.transpose(sequences, (1, 0, 2))  # [T, B, input_dim]
        runs = schedule_runs(access, attend)
        pieces = []  # [S, B, output_size] each
        offset = 0
        block, repeats = repeated_block(runs, cell.cache_size)
        if self.loop_intervals and repeats > 1:
            offset = block[-1][1] * repeats
            outputs, state = self._interval_loop(
                steps[:offset], state, like, block, repeats, round_trip, training
            )
            pieces.append(outputs)
            runs = [
                (start - offset, stop - offset, a, b)
                for start, stop, a, b in runs[len(block) * repeats :]
            ]
            steps = steps[offset:]
        more, state = self._runs(steps, runs, state, like, offset, round_trip, training)
        pieces += more
        outputs = ops.concatenate(pieces, axis=0) if len(pieces) > 1 else pieces[0]
        outputs = ops.transpose(outputs, (1, 0, 2))
        return outputs[:, -1], outputs, cell.pack_states(state, like)

    def _runs(self, steps, runs, state, like, offset, round_trip, training):
        """The steps of `runs`, each run as its decision says.

        Args:
            steps: `[S, B, input_dim]`, the runs' inputs, time-major.
            runs: `(start, stop, access, attend)` relative to `steps`.
            offset: the steps done before `steps[0]` (a Python int).

        Returns:
            `(pieces, MemoryState after them)`: a list of `[S_i, B,
            output_size]`, each run's `y_t`.
        """
        cell = self.cell
        pieces = []
        for start, stop, accesses, attends in runs:
            inputs = steps[start:stop]
            if not accesses and not attends:
                outputs, state = cell.steps_without_access(
                    inputs,
                    state,
                    offset + start,
                    training=training,
                    unroll=self.unroll or stop - start <= UNROLL_LIMIT,
                )
                pieces.append(self._project_steps(outputs))
                continue
            if stop - start > UNROLL_LIMIT:
                outputs, state = self._loop(
                    inputs, state, like, accesses, attends, training
                )
                pieces.append(outputs)
                continue
            for t in range(stop - start):
                output, state = cell.step(
                    inputs[t],
                    state,
                    state.step + 1,
                    access=accesses,
                    attend=attends,
                    training=training,
                )
                if round_trip:  # the state's dtype between steps, as the cell
                    state = cell.unpack_states(cell.pack_states(state, like))
                pieces.append(output[None])
        return pieces, state

    def _project_steps(self, features):
        """`y_t` of a stretch's `[o_t, r]`: `[S, B, H + R * W]` -> `[S, B,
        output_size]`, projected as one 2-D matmul (a `Dense` on 3-D inputs
        is a tensordot whose transposes' gradients XLA cannot fold inside
        the interval loop when the batch size is traced)."""
        length = features.shape[0]
        flat = ops.reshape(features, (-1, features.shape[-1]))
        outputs = self.cell.project(flat)
        return ops.reshape(outputs, (length, -1, outputs.shape[-1]))

    def _interval_loop(self, steps, state, like, block, repeats, round_trip, training):
        """`repeats` equal write intervals in one loop over intervals.

        With `loop_intervals=True`: Uniform Writing repeats the same interval
        (held steps, then one access) D + 1 times (Le et al. 2019, eq. 8),
        Cached Uniform Writing every L steps; a loop over the intervals
        traces each interval's stretch loop and access once, where the
        default traces one access per interval. XLA then compiles one
        access, not D + 1, at the cost of a nested loop at run time.

        Args:
            steps: `[repeats * P, B, input_dim]`, time-major.
            block: the runs of one interval, `P` steps in all.

        Returns:
            `(outputs [repeats * P, B, output_size], MemoryState after them)`.
        """
        cell = self.cell
        period = block[-1][1]
        shape = ops.shape(steps)
        intervals = ops.reshape(steps, (repeats, period, shape[1], shape[2]))

        def interval(interval_inputs, flat):
            pieces, new = self._runs(
                interval_inputs,
                block,
                cell.unpack_states(flat),
                like,
                0,
                round_trip,
                training,
            )
            outputs = ops.concatenate(pieces, axis=0) if len(pieces) > 1 else pieces[0]
            return outputs, cell.pack_states(new, flat)

        _, outputs, last = keras_compat.rnn(
            interval,
            intervals,
            cell.pack_states(state, like),
            input_length=repeats,
            time_major=True,
            return_all_outputs=True,
        )
        outputs = ops.reshape(
            outputs, (repeats * period, shape[1], outputs.shape[-1])
        )
        return outputs, cell.unpack_states(list(last))

    def _loop(self, inputs, state, like, access, attend, training):
        """A long run of alike steps in the backend's loop.

        Args:
            inputs: `[S, B, input_dim]`, time-major.

        Returns:
            `(outputs [S, B, output_size], MemoryState after the run)`: each
            step's `y_t`.
        """
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
            input_length=inputs.shape[0],
            time_major=True,
            return_all_outputs=True,
        )
        return outputs, cell.unpack_states(list(states))

    def get_config(self):
        return {**super().get_config(), "loop_intervals": self.loop_intervals}

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
