"""What an enwik8 run writes beside its checkpoints: TensorBoard scalars
under `out_dir/tensorboard` (on the TensorFlow backend only: on JAX,
TensorFlow beside it would take GPU memory), `out_dir/history.jsonl` (one
`{"step": ..., name: value, ...}` per line) and `out_dir/results.json`.
"""

import json
import pathlib

import keras

from keras_rda.lab.files import DamagedFile
from keras_rda.lab.files import write_atomically
from keras_rda.lab.runs.summaries import write_scalars


class RunLog:
    """Writes scalars to TensorBoard and `history.jsonl`, and `results.json`.

    Args:
        out_dir: the run's output directory (must exist).
        tensorboard: whether to write TensorBoard scalars (default: on the
            TensorFlow backend).
    """

    def __init__(self, out_dir, tensorboard=None):
        self.out_dir = pathlib.Path(out_dir)
        if tensorboard is None:
            tensorboard = keras.backend.backend() == "tensorflow"
        self.tensorboard = tensorboard
        self._writer = None

    def scalars(self, step, values):
        """Logs `{name: float}` at `step` to TensorBoard and the history."""
        if self.tensorboard:
            if self._writer is None:
                import tensorflow as tf

                self._writer = tf.summary.create_file_writer(
                    str(self.out_dir / "tensorboard")
                )
            write_scalars(self._writer, values, step)
        with open(self.out_dir / "history.jsonl", "a") as f:
            f.write(json.dumps({"step": step, **values}) + "\n")

    def history(self):
        """The lines of `history.jsonl` written so far, as dicts (a last line
        cut short by a kill left out).

        Raises:
            DamagedFile: another line is not JSON.
        """
        path = self.out_dir / "history.jsonl"
        if not path.exists():
            return []
        text = path.read_text()
        lines = text.splitlines()
        if lines and not text.endswith("\n"):
            lines.pop()  # cut short by a kill
        history = []
        for number, line in enumerate(lines, 1):
            try:
                history.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise DamagedFile(
                    path, f"line {number} is not JSON ({error})"
                ) from None
        return history

    def results(self, result):
        """Writes `result` (a JSON-serialisable dict) to `results.json`."""
        write_atomically(self.out_dir / "results.json", json.dumps(result, indent=2))
