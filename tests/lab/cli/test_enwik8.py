"""`keras-rda enwik8` through the one command line."""

import json

import numpy as np

from keras_rda.lab.cli import main
from tests.lab.cli.conftest import REPO_ROOT
from tests.lab.cli.conftest import run_cli


def test_enwik8_tiny_run_with_the_common_options(tmp_path, capsys):
    rng = np.random.default_rng(0)
    text = b"<mediawiki the cat sat on the mat. " * 200
    noisy = np.frombuffer(text, np.uint8).copy()
    noisy[20:][rng.random(len(noisy) - 20) < 0.1] = ord("x")
    data = tmp_path / "sample.txt"
    data.write_bytes(noisy.tobytes())
    out = tmp_path / "run"
    argv = ["enwik8", "--data", str(data), "--scale", "tiny", "--model", "gru"]
    argv += ["--steps", "3", "--seed", "1", "--verbose", "0", "--out", str(out)]
    assert main(argv) == 0
    assert "gru: valid BPC" in capsys.readouterr().out
    result = json.loads((out / "results.json").read_text())
    assert result["step"] == 3 and result["model"] == "gru"
    # The zoo's GRU: Glorot, not orthogonal, recurrent weights.
    from keras_rda.lab.enwik8.char_model import build_char_model

    layer = build_char_model("gru", units=4).get_layer("rnn")
    assert layer.cell.recurrent_initializer.__class__.__name__ == "GlorotUniform"
    # Rerunning the finished command resumes at its end (nothing redone).
    assert main([a if a != "0" else "1" for a in argv]) == 0
    assert "Resuming from step 3" in capsys.readouterr().out


def test_python_dash_m_training_is_the_enwik8_subcommand():
    result = run_cli(["enwik8", "--help"])
    assert result.returncode == 0 and "--seq-len" in result.stdout
    import subprocess
    import sys

    shim = subprocess.run(
        [sys.executable, "-m", "keras_rda.lab.enwik8", "--steps", "0"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert shim.returncode == 2
    assert shim.stderr.strip().endswith(
        "argument `--steps`, expected a positive integer, got 0"
    )


def test_enwik8_results_dir_adds_the_run_to_the_scales_record(tmp_path):
    data = tmp_path / "sample.txt"
    data.write_bytes(b"<mediawiki the cat sat on the mat. " * 200)
    argv = ["enwik8", "--data", str(data), "--scale", "tiny", "--steps", "2"]
    argv += ["--verbose", "0", "--results-dir", str(tmp_path / "results")]
    for model in ("gru", "lstm"):
        assert main(argv + ["--model", model, "--out", str(tmp_path / model)]) == 0
    record = json.loads((tmp_path / "results" / "enwik8-tiny.json").read_text())
    assert list(record["runs"]) == ["gru", "lstm"]
    run = record["runs"]["lstm"]
    result = json.loads((tmp_path / "lstm" / "results.json").read_text())
    assert run["test_bpc"] == result["test_bpc"] and run["step"] == 2
    assert record["kind"] == "enwik8"
    assert run["command"]["argv"][:3] == ["keras-rda", "enwik8", "--data"]
    assert not {"--out", "--results-dir", "--verbose"} & set(run["command"]["argv"])
    assert run["history"][-1]["valid/bpc"] == result["valid_bpc"]


def test_enwik8_refuses_multi_worker_in_one_line(tmp_path, capsys):
    argv = ["enwik8", "--scale", "tiny", "--strategy", "multi-worker"]
    assert main(argv + ["--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--strategy multi-worker" in err[0], err
    assert "data-parallel on JAX" in err[0]
    assert not (tmp_path / "run").exists()
