"""Checkpoints of an enwik8 run that resume exactly where it stopped.

A checkpoint (the last 3 kept under `out_dir/checkpoints`) holds the
model's weights, the optimizer, the step counter (also the data position:
segment `step % segments_per_epoch`) and the state carried across
truncated-BPTT segments, gathered from all replicas into `[global_batch,
size]` tensors. `out_dir/config.json` records what it was written for;
resuming a different run in the same directory is refused. One that cannot
be restored raises `keras_rda.lab.files.DamagedFile` naming it; `discard`
removes a run's files (`--restart`). `TrainingCheckpoint` is the TensorFlow
loop's (`tf.train.Checkpoint`, which also writes to `gs://` for TPUs), the
JAX loop's is `array_checkpoint.ArrayCheckpoint`.
"""

import json
import pathlib
import shutil

from keras_rda.lab.files import DamagedFile
from keras_rda.lab.files import make_folder
from keras_rda.lab.files import read_json
from keras_rda.lab.files import unreadable
from keras_rda.lab.files import write_atomically

# What an enwik8 run writes in its output folder (see `discard`).
RUN_FILES = (
    "checkpoints",
    "tensorboard",
    "config.json",
    "history.jsonl",
    "results.json",
)


def check_run_config(out_dir, run_config, has_checkpoint):
    """Refuses to resume a checkpoint in `out_dir` (`has_checkpoint`: it holds
    one) written for another `run_config` (model, sizes, data length), then
    writes `run_config` to `out_dir/config.json` (`out_dir` made if missing).

    Raises:
        ValueError: the saved `config.json` differs from `run_config`.
        DamagedFile: the saved `config.json` cannot be read.
    """
    out_dir = pathlib.Path(out_dir)
    make_folder(out_dir)
    path = out_dir / "config.json"
    if has_checkpoint:
        saved = read_json(path)
        diff = {
            k: (saved.get(k), v) for k, v in run_config.items() if saved.get(k) != v
        }
        if diff:
            raise ValueError(
                f"{out_dir} holds a checkpoint of a different run "
                f"(saved vs now: {diff}); use another --out directory."
            )
    write_atomically(path, json.dumps(run_config, indent=2))


def refuse_other_format(checkpoints, pattern, backend):
    """A `ValueError` if `checkpoints` holds files matching `pattern`: a
    checkpoint of the loop on `backend`, which this one cannot read."""
    found = sorted(pathlib.Path(checkpoints).glob(pattern))
    if found:
        raise ValueError(
            f"{checkpoints} holds a checkpoint of the {backend} loop "
            f"({found[0].name}); resume it with KERAS_BACKEND={backend}, or use "
            "another --out directory or --restart."
        )


def discard(out_dir):
    """Removes the files of the enwik8 run in `out_dir` (its checkpoints,
    configuration, logs and results), so that a run there starts over."""
    out_dir = pathlib.Path(out_dir)
    for name in RUN_FILES:
        path = out_dir / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


class TrainingCheckpoint:
    """Saves and restores model, optimizer, step and carried state.

    Creating it on a directory that holds a checkpoint restores the latest
    one (and checks `run_config` against the saved one first).

    Args:
        out_dir: the run's directory; checkpoints go to `out_dir/checkpoints`,
            the run's configuration to `out_dir/config.json`.
        model: the model (its variables are saved).
        optimizer: the built optimizer.
        strategy: the `tf.distribute.Strategy` whose replicas carry the state.
        state_sizes: size of each carried state tensor.
        batch_size: the global batch (rows of the carried state).
        run_config: a JSON-serialisable dict; a checkpoint written for another
            `run_config` is not restored.

    Attributes:
        step: int64 `tf.Variable`, the number of steps done.
        carried_state: one float32 `tf.Variable` `[batch_size, size]` per
            state tensor, on the host (not mirrored: replicas differ).
        restored_from: the path restored from, or None.

    Raises:
        ValueError: if `out_dir` holds a checkpoint of another `run_config`.
        DamagedFile: if the checkpoint there cannot be restored.
    """

    def __init__(
        self, out_dir, model, optimizer, strategy, state_sizes, batch_size, run_config
    ):
        import tensorflow as tf

        self.out_dir = pathlib.Path(out_dir)
        self.strategy = strategy
        self.batch_size = batch_size
        with tf.device("CPU:0"):
            self.step = tf.Variable(0, dtype=tf.int64, trainable=False, name="step")
            self.carried_state = [
                tf.Variable(
                    tf.zeros([batch_size, s]),
                    trainable=False,
                    name=f"carried_state_{i}",
                )
                for i, s in enumerate(state_sizes)
            ]
        self._checkpoint = tf.train.Checkpoint(
            model=model,
            optimizer=optimizer,
            step=self.step,
            carried_state=self.carried_state,
        )
        self.manager = tf.train.CheckpointManager(
            self._checkpoint, str(self.out_dir / "checkpoints"), max_to_keep=3
        )
        self._check_run_config(run_config)
        self.restored_from = None
        if self.manager.latest_checkpoint:
            self._restore(self.manager.latest_checkpoint)

    def save(self, states=None):
        """Writes a checkpoint numbered by `step` and returns its path; `states`,
        the per-replica carried state as the train step returns it, replaces
        the saved one first where given."""
        from keras_rda.lab.enwik8 import replica_rows

        if states is not None:
            gathered = replica_rows.gather(self.strategy, states)
            for variable, value in zip(self.carried_state, gathered):
                variable.assign(value)
        return self.manager.save(checkpoint_number=int(self.step.numpy()))

    def distributed_state(self):
        """The saved carried state cut into the replicas' row blocks."""
        from keras_rda.lab.enwik8 import replica_rows

        return replica_rows.distribute(
            self.strategy,
            [v.read_value() for v in self.carried_state],
            self.batch_size,
        )

    def _restore(self, prefix):
        """Restores checkpoint `prefix`; `DamagedFile` if it cannot be."""
        import tensorflow as tf

        try:
            self._checkpoint.restore(prefix).assert_consumed()
        # What TensorFlow raises for a file cut short or missing varies
        # (DataLossError, NotFoundError, "Read less bytes than requested").
        except (
            tf.errors.OpError,
            OSError,
            ValueError,
            AssertionError,
            IndexError,
            KeyError,
        ) as error:
            what = "the checkpoint cannot be restored"
            raise unreadable(prefix, what, error) from None
        self.restored_from = prefix

    def _check_run_config(self, run_config):
        """Refuses to resume a checkpoint written by a different setup, or
        one that cannot be told apart from one (its `config.json` or its
        `checkpoint` index damaged)."""
        checkpoints = pathlib.Path(self.manager.directory)
        refuse_other_format(checkpoints, "ckpt-*.npz", "jax")
        if not self.manager.latest_checkpoint and any(checkpoints.glob("ckpt-*")):
            raise DamagedFile(
                checkpoints / "checkpoint",
                "it names no checkpoint, but checkpoint files are beside it",
            )
        check_run_config(self.out_dir, run_config, bool(self.manager.latest_checkpoint))
