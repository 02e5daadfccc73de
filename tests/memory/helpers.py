"""Test helpers: run a memory cell step by step, pack and unpack its state."""

import keras
import numpy as np


def np_(x):
    return keras.ops.convert_to_numpy(x)


def build_cell(cell, input_dim):
    cell.build((None, input_dim))
    return cell


def run_steps(cell, x):
    """Run `cell` eagerly over `x` `[B, T, D]`; return outputs and all states.

    Returns:
        `(outputs [B, T, out], states)` where `states[t]` is the flat state
        list after step `t + 1` (and `states[-1]`... of the last step) and
        `states` has `T + 1` entries, the initial state first.
    """
    batch, steps = x.shape[0], x.shape[1]
    state = cell.get_initial_state(batch_size=batch)
    states = [state]
    outputs = []
    for t in range(steps):
        out, state = cell(keras.ops.convert_to_tensor(x[:, t]), state)
        outputs.append(np_(out))
        states.append(state)
    return np.stack(outputs, axis=1), states


def parts(cell, state):
    """Named NumPy parts of a flat state: step, controller (a list), each
    part of the cell's `AccessState`, read_vectors and cache."""
    unpacked = cell.unpack_states(state)
    named = {
        "step": np_(unpacked.step),
        "controller": [np_(v) for v in keras.tree.flatten(unpacked.controller)],
        "read_vectors": np_(unpacked.read_vectors),
    }
    named.update({k: np_(v) for k, v in unpacked.access._asdict().items()})
    if unpacked.cache is not None:
        named["cache"] = np_(unpacked.cache)
    return named
