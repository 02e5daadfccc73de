"""Save small DNC/NTM models with the code of commit 7f6b31a.

Run on that commit, `python save_main_models.py OUT_DIR`; the files it wrote
are the fixtures of `test_files_saved_before_the_state_and_build_rework_...`.
"""

import sys

import keras
import numpy as np

import keras_rda
from keras_rda.memory import CachedUniformWriting
from keras_rda.memory import UniformWriting


def main(out):
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 12, 3)).astype("float32")
    result = {"x": x}
    for name, cls, schedule in [
        ("dnc_cuw", keras_rda.DNCCell, CachedUniformWriting(3, encoding_steps=9)),
        (
            "ntm_uw",
            keras_rda.NTMCell,
            UniformWriting(sequence_length=9, encoding_steps=9),
        ),
    ]:
        cell = cls(
            keras.layers.LSTMCell(6),
            memory_size=4,
            word_size=5,
            write_schedule=schedule,
            output_units=3,
        )
        model = keras.Sequential(
            [keras.Input((12, 3)), keras.layers.RNN(cell, return_sequences=True)]
        )
        result[name] = keras.ops.convert_to_numpy(model(x))
        result[name + "_weights"] = np.array([w.path for w in model.weights])
        model.save(f"{out}/main_{name}.keras")
    np.savez(f"{out}/main_outputs.npz", **result)


if __name__ == "__main__":
    main(sys.argv[1])
