"""Shared pytest configuration and fixtures."""

import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_keras_session():
    """Each test starts from a clean Keras state and a float32 policy."""
    keras.backend.clear_session()
    keras.config.set_dtype_policy("float32")
    keras.utils.set_random_seed(1234)
    yield
    keras.config.set_dtype_policy("float32")


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def data_dir():
    """The shared real data directory (`KERAS_RDA_DATA_DIR`), or skip."""
    path = os.environ.get("KERAS_RDA_DATA_DIR")
    if not path or not pathlib.Path(path).is_dir():
        pytest.skip("KERAS_RDA_DATA_DIR is not set to a directory of real data")
    return pathlib.Path(path)
