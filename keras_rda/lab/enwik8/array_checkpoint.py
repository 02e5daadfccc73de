"""Checkpoints of the JAX enwik8 loop: the same contents as the TensorFlow
loop's, in NumPy `.npz` files.

`out_dir/checkpoints/ckpt-STEP.npz` holds, as `TrainingCheckpoint` does:

- the model's weights (`model/0`, `model/1`, ... in `model.weights` order);
- the optimizer's variables (`optimizer/0`, ...: Adam's iteration count and
  moments);
- the step counter (`step`), which is also the data position;
- the carried state (`carried_state/0`, ...), `[global_batch, size]` each.

Each file is written through a temporary name and renamed
(`keras_rda.lab.files.replacing`), so a kill leaves the previous checkpoint
whole; the last 3 are kept. `out_dir/config.json` is checked as in the
TensorFlow loop (`checkpointing.check_run_config`). Only NumPy and Keras are
needed: no TensorFlow.
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

_NAME = re.compile(r"ckpt-(\d+)\.npz")


class ArrayCheckpoint:
    """Saves and restores model, optimizer, step and carried state (`.npz`).

    Creating it on a directory that holds a checkpoint restores the latest
    one (and checks `run_config` against the saved one first). The same
    members as `checkpointing.TrainingCheckpoint`.

    Args:
        out_dir: the run's directory; checkpoints go to `out_dir/checkpoints`,
            the run's configuration to `out_dir/config.json`.
        model: the model (its weights are saved).
        optimizer: the built optimizer.
        state_sizes: size of each carried state tensor.
        batch_size: the global batch (rows of the carried state).
        run_config: a JSON-serialisable dict; a checkpoint written for another
            `run_config` is not restored.
        keep: how many checkpoints to keep.

    Attributes:
        step: int32 `keras.Variable`, the number of steps done.
        carried_state: one float32 `keras.Variable` `[batch_size, size]` per
            state tensor.
        restored_from: the path restored from, or None.
        directory: `out_dir/checkpoints`.

    Raises:
        ValueError: if `out_dir` holds a checkpoint of another `run_config`,
            or one of the TensorFlow loop.
        DamagedFile: if the checkpoint there cannot be restored.
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

    @property
    def latest_checkpoint(self):
        """The path of the checkpoint of the highest step, or None."""
        found = [
            (int(m.group(1)), p)
            for p in self.directory.glob("ckpt-*.npz")
            if (m := _NAME.fullmatch(p.name))
        ]
        return max(found)[1] if found else None

    def _arrays(self):
        arrays = {"step": np.asarray(self.step.numpy())}
        for group, variables in (
            ("model", self.model.weights),
            ("optimizer", self.optimizer.variables),
            ("carried_state", self.carried_state),
        ):
            for i, v in enumerate(variables):
                arrays[f"{group}/{i}"] = np.asarray(v.numpy())
        return arrays

    def save(self, states=None):
        """Writes `ckpt-STEP.npz` and keeps the last `keep` checkpoints.

        Args:
            states: the carried state (as the train step returns it); when
                given, it replaces the saved carried state first.

        Returns:
            The checkpoint's path.
        """
        if states is not None:
            for variable, value in zip(self.carried_state, states):
                variable.assign(np.asarray(value))
        make_folder(self.directory)
        path = self.directory / f"ckpt-{int(self.step.numpy())}.npz"
        with replacing(path) as tmp:  # a hidden name that ends in .npz
            np.savez(tmp, **self._arrays())
        kept = sorted(
            (int(m.group(1)), p)
            for p in self.directory.glob("ckpt-*.npz")
            if (m := _NAME.fullmatch(p.name))
        )
        for _, old in kept[: -self.keep]:
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
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise DamagedFile(
                path, f"the checkpoint cannot be restored ({first})"
            ) from None
        for name, value in arrays.items():
            if value.shape != expected[name].shape:
                raise DamagedFile(
                    path,
                    f"{name} has shape {value.shape}, the model needs "
                    f"{expected[name].shape}",
                )
        self.step.assign(arrays["step"])
        for group, variables in (
            ("model", self.model.weights),
            ("optimizer", self.optimizer.variables),
            ("carried_state", self.carried_state),
        ):
            for i, v in enumerate(variables):
                v.assign(arrays[f"{group}/{i}"])
        self.restored_from = str(path)
