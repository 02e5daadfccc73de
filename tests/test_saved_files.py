"""`.keras` files saved by an earlier commit load with today's code.

`tests/data/*.keras` were written by `tests/data/save_every_unit.py` (one
small model of every public unit, with random non-zero weights) at the
commit that last changed them (`git log tests/data`);
`every_unit_outputs.npz` holds the inputs and that code's outputs. Loading
them now must give the same outputs, without a warning of this package's:
the registered names, the configs and the weight order have not changed.
"""

import pathlib
import warnings

import keras
import numpy as np
import pytest

import keras_rda  # (registers the units)

DATA = pathlib.Path(__file__).parent / "data"
PACKAGE = pathlib.Path(keras_rda.__file__).parent
SAVED = np.load(DATA / "every_unit_outputs.npz")
NAMES = sorted(k for k in SAVED.files if not k.endswith("__x"))


def test_every_public_unit_has_a_saved_file():
    assert len(NAMES) == 16 and all((DATA / f"{n}.keras").exists() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_saved_file_loads_with_the_same_outputs(name):
    # Quietly, too: no warning of this package's (their configs hold every
    # argument of their day, `unit_discount_bias` among them).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = keras.saving.load_model(DATA / f"{name}.keras")
    ours = [w for w in caught if PACKAGE in pathlib.Path(w.filename).parents]
    assert not ours, [str(w.message) for w in ours]
    outputs = keras.ops.convert_to_numpy(model(SAVED[f"{name}__x"]))
    np.testing.assert_allclose(outputs, SAVED[name], rtol=1e-5, atol=1e-6)
