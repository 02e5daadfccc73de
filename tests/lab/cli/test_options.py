"""`keras_rda.lab.cli.options`: what the command line reads before Keras."""

import json
import sys

from keras_rda.lab.cli import options


def test_the_backend_is_read_as_keras_reads_it_without_importing_keras(
    tmp_path, monkeypatch
):
    # A record's command names the backend; reading it must not import Keras,
    # so that a command that fails on a flag loads no backend.
    monkeypatch.delitem(sys.modules, "keras")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    assert options.keras_backend() == "jax"
    monkeypatch.delenv("KERAS_BACKEND")
    assert options.keras_backend() == "tensorflow"  # no keras.json
    (tmp_path / "keras.json").write_text(json.dumps({"backend": "torch"}))
    assert options.keras_backend() == "torch"
    assert "keras" not in sys.modules
    assert options.record_command(["train", "reber", "--out", "x"]) == {
        "argv": ["keras-rda", "train", "reber"],
        "env": {"KERAS_BACKEND": "torch"},
    }
