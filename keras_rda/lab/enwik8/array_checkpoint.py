"""Checkpoints of the JAX enwik8 loop: the TensorFlow loop's contents
(`checkpointing`) in NumPy files, `out_dir/checkpoints/ckpt-STEP.npz`:
`model/I` and `optimizer/I` (the variables in order), `step` and
`carried_state/I`. Each file is written whole or not at all
(`keras_rda.lab.files.replacing`); the last 3 are kept. No TensorFlow.
"""

import pathlib
import re
import zipfile

import keras
import numpy as np

from keras_rda.lab.enwik8.checkpointing import check_run_config
from keras_rda.lab.enwik8.checkpointing import refuse_other_format
from keras_rda.lab.files import DamagedFile
from keras_rda.lab.files import make_folder
from keras_rda.lab.files import replacing
from keras_rda.lab.files import unreadable

_NAME = re.compile(r"ckpt-(\d+)\.npz")


class ArrayCheckpoint:
    """Saves and restores model, optimizer, step and carried state (`.npz`).

    The arguments, members and errors of `checkpointing.TrainingCheckpoint`,
    without `strategy`, with `keep` (how many checkpoints to keep) and
    `directory` (`out_dir/checkpoints`); `step` is an int32 `keras.Variable`.
    A checkpoint of the TensorFlow loop in `out_dir` is refused.
    """

    def __init__(
        self, out_dir, model, optimizer, state_sizes, batch_size, run_config, keep=3
    ):
        self.out_dir = pathlib.Path(out_dir)
        self.directory = self.out_dir / "checkpoints"
        self.model = model
        self.optimizer = optimizer
        self.keep = keep
        self.step = keras.Variable(0, dtype="int32", trainable=False, name="step")
        self.carried_state = [
            keras.Variable(
                np.zeros((batch_size, s), np.float32),
                trainable=False,
                name=f"carried_state_{i}",
            )
            for i, s in enumerate(state_sizes)
        ]
        refuse_other_format(self.directory, "checkpoint", "tensorflow")
        latest = self.latest_checkpoint
        check_run_config(self.out_dir, run_config, latest is not None)
        self.restored_from = None
        if latest is not None:
            self._restore(latest)

    def _checkpoints(self):
        """`[(step, path)]` of the checkpoints here, by step."""
        return sorted(
            (int(m.group(1)), p)
            for p in self.directory.glob("ckpt-*.npz")
            if (m := _NAME.fullmatch(p.name))
        )

    @property
    def latest_checkpoint(self):
        """The path of the checkpoint of the highest step, or None."""
        found = self._checkpoints()
        return found[-1][1] if found else None

    def _variables(self):
        """`{name: variable}` of everything a checkpoint holds but `step`."""
        groups = {
            "model": self.model.weights,
            "optimizer": self.optimizer.variables,
            "carried_state": self.carried_state,
        }
        return {
            f"{group}/{i}": v
            for group, variables in groups.items()
            for i, v in enumerate(variables)
        }

    def _arrays(self):
        arrays = {"step": np.asarray(self.step.numpy())}
        for name, v in self._variables().items():
            arrays[name] = np.asarray(v.numpy())
        return arrays

    def save(self, states=None):
        """Writes `ckpt-STEP.npz` (its path returned) and keeps the last `keep`
        checkpoints; `states` as for `TrainingCheckpoint.save`."""
        if states is not None:
            for variable, value in zip(self.carried_state, states):
                variable.assign(np.asarray(value))
        make_folder(self.directory)
        path = self.directory / f"ckpt-{int(self.step.numpy())}.npz"
        with replacing(path) as tmp:  # a hidden name that ends in .npz
            np.savez(tmp, **self._arrays())
        for _, old in self._checkpoints()[: -self.keep]:
            old.unlink(missing_ok=True)
        return str(path)

    def distributed_state(self):
        """The saved carried state, NumPy `[batch_size, size]` arrays."""
        return [np.asarray(v.numpy()) for v in self.carried_state]

    def _restore(self, path):
        """Restores checkpoint `path`; `DamagedFile` if it cannot be."""
        expected = self._arrays()
        try:
            with np.load(path) as saved:
                arrays = {name: saved[name] for name in expected}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            what = "the checkpoint cannot be restored"
            raise unreadable(path, what, error) from None
        for name, value in arrays.items():
            if value.shape != expected[name].shape:
                raise DamagedFile(
                    path,
                    f"{name} has shape {value.shape}, the model needs "
                    f"{expected[name].shape}",
                )
        self.step.assign(arrays["step"])
        for name, v in self._variables().items():
            v.assign(arrays[name])
        self.restored_from = str(path)
