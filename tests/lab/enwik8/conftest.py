"""Fixtures for the enwik8 training loop tests: tiny data, tiny presets, and
scripts run in a fresh Python process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from keras_rda.lab.datasets.enwik8 import Enwik8
from keras_rda.lab.datasets.enwik8 import split_tokens
from keras_rda.lab.enwik8.presets import get_preset
from tests.conftest import REPO_ROOT


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


def run_script(script, *args, **environ):
    """Runs `python -c script *args` in a fresh process at the repository root.

    For what must happen before TensorFlow or Keras initialise (logical
    devices, `KERAS_BACKEND`). `environ` is added to the environment.

    Returns:
        The JSON the script printed after "REPORT" on its last such line.
    """
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        cwd=REPO_ROOT,
        env={**env, **environ},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = [s for s in proc.stdout.splitlines() if s.startswith("REPORT")]
    assert reports, proc.stdout[-3000:]
    return json.loads(reports[-1][len("REPORT") :])
