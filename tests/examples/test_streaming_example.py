"""`examples/char_rda_streaming.py --quick`: trains, exports the step model
to LiteRT and streams it token by token (its own check: the interpreter's
first steps equal the Keras step model's)."""

import pathlib
import runpy
import sys

import pytest

pytestmark = pytest.mark.tensorflow_only

EXAMPLE = (
    pathlib.Path(__file__).resolve().parents[2] / "examples" / "char_rda_streaming.py"
)


def test_the_character_model_streams_in_litert(monkeypatch, capsys):
    pytest.importorskip("ai_edge_litert")
    monkeypatch.delenv("KERAS_RDA_DATA_DIR", raising=False)  # the built-in text
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "--quick"])
    namespace = runpy.run_path(str(EXAMPLE), run_name="__main__")
    assert namespace["model"].optimizer.iterations.numpy() > 0
    assert len(namespace["generated"]) == 20
    assert 0 in namespace["prompt"]  # a padding token inside the prompt
    out = capsys.readouterr().out
    assert "val_loss" in out and "generated:" in out
