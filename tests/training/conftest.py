"""Fixtures for the enwik8 training loop tests: tiny data, tiny presets."""

import numpy as np
import pytest

from keras_rda.datasets.enwik8 import Enwik8
from keras_rda.datasets.enwik8 import split_tokens
from keras_rda.training.presets import get_preset


def make_data(n=4000, seed=0):
    """An Enwik8 of `n` structured bytes (a noisy repeating text)."""
    rng = np.random.default_rng(seed)
    text = np.frombuffer(
        b"<mediawiki> the cat sat on the mat. " * (n // 36 + 1), np.uint8
    )
    text = text[:n].copy()
    noise = rng.random(n) < 0.1
    text[noise] = rng.integers(97, 123, noise.sum())
    return Enwik8(*split_tokens(text))


@pytest.fixture
def tiny_data():
    return make_data()


@pytest.fixture
def tiny_preset():
    return get_preset("tiny", checkpoint_every=1000, log_every=1)
