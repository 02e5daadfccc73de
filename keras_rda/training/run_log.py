"""What an enwik8 run writes beside its checkpoints: scalars and results.

- TensorBoard scalars under `out_dir/tensorboard` (`train/bpc`,
  `train/chars_per_sec`, `valid/bpc`, `test/bpc`), written with TensorFlow
  alone (`pip install tensorboard` only to view them);
- `out_dir/history.jsonl`: one `{"step": ..., name: value, ...}` per line;
- `out_dir/results.json`: the final result of `Enwik8Trainer.train`.
"""

import json
import pathlib

import tensorflow as tf


def _write_scalar(name, value, step):
    """A TensorBoard scalar summary, without needing the tensorboard package.

    `tf.summary.scalar` lives in the tensorboard package; this writes the same
    event (a float32 scalar tagged for TensorBoard's "scalars" plugin) with
    TensorFlow alone.
    """
    from tensorflow.core.framework import summary_pb2

    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
    )
    tf.summary.write(name, tf.constant(value, tf.float32), step=step, metadata=metadata)


class RunLog:
    """Writes scalars to TensorBoard and `history.jsonl`, and `results.json`.

    Args:
        out_dir: the run's output directory (must exist).
    """

    def __init__(self, out_dir):
        self.out_dir = pathlib.Path(out_dir)
        self._writer = None

    def scalars(self, step, values):
        """Logs `{name: float}` at `step` to TensorBoard and the history."""
        if self._writer is None:
            self._writer = tf.summary.create_file_writer(
                str(self.out_dir / "tensorboard")
            )
        with self._writer.as_default():
            for name, value in values.items():
                _write_scalar(name, value, step)
        self._writer.flush()
        with open(self.out_dir / "history.jsonl", "a") as f:
            f.write(json.dumps({"step": step, **values}) + "\n")

    def history(self):
        """The lines of `history.jsonl` written so far, as dicts."""
        path = self.out_dir / "history.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def results(self, result):
        """Writes `result` (a JSON-serialisable dict) to `results.json`."""
        (self.out_dir / "results.json").write_text(json.dumps(result, indent=2))
