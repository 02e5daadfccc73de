"""A `keras-rda train` killed by SIGTERM continues when rerun."""

import json
import os
import signal
import subprocess
import sys
import time

from tests.conftest import REPO_ROOT
from tests.lab.cli.conftest import run_cli


def test_sigterm_then_rerun_continues(tmp_path):
    args = ["train", "reber", "--model", "gru", "--units", "3", "--batch-size", "4"]
    args += ["--steps", "200", "--eval-every", "5", "--eval-examples", "6"]
    args += ["--out", str(tmp_path), "--verbose", "2"]
    latest = tmp_path / "checkpoints" / "reber-gru" / "gru-seed0" / "latest.json"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "keras_rda.lab.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if latest.exists() and json.loads(latest.read_text())["epoch"] >= 2:
                break
            assert proc.poll() is None, "the run ended before it was killed"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
    before = json.loads(latest.read_text())  # the checkpoint it left
    done = before["epoch"] * 5
    assert 10 <= done < 200
    assert not (tmp_path / "reber-gru.json").exists()

    result = run_cli(args)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"gru: resuming after step {done} " in result.stdout
    # Steps not redone: the rerun logs only the evaluations after `done`.
    logged = [
        int(line.split(" step ")[1].split("/")[0])
        for line in result.stdout.splitlines()
        if line.startswith("gru (seed 0) step ")
    ]
    assert logged == list(range(done + 5, 201, 5))
    run = json.loads((tmp_path / "reber-gru.json").read_text())["runs"][0]
    assert [c["step"] for c in run["curve"]] == list(range(5, 201, 5))
    assert run["curve"][: before["epoch"]] == before["curve"]
    assert run["seconds"] > before["seconds"]
