"""Shared settings of the CLI tests: a run small enough for seconds."""

import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

TINY = [
    "--steps",
    "4",
    "--eval-every",
    "2",
    "--batch-size",
    "4",
    "--units",
    "3",
    "--eval-examples",
    "6",
    "--verbose",
    "0",
]


def run_cli(args, **kwargs):
    """`python -m keras_rda.lab.cli ARGS` in a subprocess (stdout is a pipe)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO_ROOT))
    return subprocess.run(
        [sys.executable, "-m", "keras_rda.lab.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        **kwargs,
    )
