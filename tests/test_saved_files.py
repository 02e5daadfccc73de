"""`.keras` files saved before the library/lab split load with today's code.

`tests/data/*.keras` were written by `tests/data/save_every_unit.py` run on
commit 1a0f59f (one small model of every public unit, with random non-zero
weights); `every_unit_outputs.npz` holds the inputs and that code's outputs.
Loading them now must give the same outputs: the registered names, the
configs and the weight order have not changed.
"""

import pathlib

import keras
import numpy as np
import pytest

import keras_rda  # noqa: F401  (registers the units)

DATA = pathlib.Path(__file__).parent / "data"
SAVED = np.load(DATA / "every_unit_outputs.npz")
NAMES = sorted(k for k in SAVED.files if not k.endswith("__x"))


def test_every_public_unit_has_a_saved_file():
    assert len(NAMES) == 16 and all((DATA / f"{n}.keras").exists() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_file_saved_before_the_split_loads_with_the_same_outputs(name):
    model = keras.saving.load_model(DATA / f"{name}.keras")
    outputs = keras.ops.convert_to_numpy(model(SAVED[f"{name}__x"]))
    np.testing.assert_allclose(outputs, SAVED[name], rtol=1e-5, atol=1e-6)
