"""`--global-clipnorm N` (Keras's `global_clipnorm`): the gradient's global
norm clipped to N in place of the element-wise clip, in the optimiser and in
the record, so that a record made with it has a command a reader can run."""

import dataclasses
import json

import pytest

from keras_rda.lab import runs
from keras_rda.lab.cli import main
from keras_rda.lab.zoo import ModelSpec
from keras_rda.lab.zoo import get_model_spec
from keras_rda.lab.zoo import register_model
from tests.lab.cli.conftest import TINY

# The zoo RDA clips element-wise at 1 (the RDA paper), and the task's small
# scale leaves the clip to each model.
COMMAND = ["train", "adding-problem", "--model", "rda", "--seq-len", "6"]


@pytest.fixture
def results(monkeypatch):
    """The `RunResult`s of each `keras_rda.lab.runs.run` the command makes."""
    real, calls = runs.run, []

    def run_and_keep(spec):
        calls.append(real(spec))
        return calls[-1]

    monkeypatch.setattr(runs, "run", run_and_keep)
    return calls


def test_the_flag_clips_the_global_norm_and_the_record_says_so(results, tmp_path):
    out = ["--out", str(tmp_path)]
    assert main(COMMAND + TINY + out + ["--global-clipnorm", "1"]) == 0
    ((result,),) = results
    assert result.keras_model.optimizer.global_clipnorm == 1.0
    assert result.keras_model.optimizer.clipvalue is None
    assert result.keras_model.optimizer.clipnorm is None
    data = json.loads((tmp_path / "adding-problem-rda.json").read_text())
    (run,) = data["runs"]
    assert run["settings"]["global_clipnorm"] == 1.0
    assert run["settings"]["clipvalue"] == 0.0  # replaced, as by --clipnorm
    assert "clipnorm" not in run["settings"]
    assert data["commands"][0]["argv"][-2:] == ["--global-clipnorm", "1"]


def test_without_the_flag_the_paper_clips_element_wise(results, tmp_path):
    assert main(COMMAND + TINY + ["--out", str(tmp_path)]) == 0
    ((result,),) = results
    assert result.keras_model.optimizer.clipvalue == 1.0
    assert result.keras_model.optimizer.global_clipnorm is None
    assert result.settings["clipvalue"] == 1.0
    assert "global_clipnorm" not in result.settings


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--global-clipnorm", "1", "--clipvalue", "1"], "--clipvalue"),
        (["--global-clipnorm", "1", "--clipnorm", "1"], "--clipnorm"),
        (["--global-clipnorm", "0"], "finite number > 0"),
        (["--global-clipnorm", "nan"], "finite number > 0"),
        (["--global-clipnorm", "-1"], "finite number > 0"),
    ],
)
@pytest.mark.parametrize("command", [COMMAND, ["compare", "reber", "--models", "gru"]])
def test_a_bad_global_clipnorm_is_one_line(monkeypatch, capsys, command, flags, named):
    handed = []
    monkeypatch.setattr(runs, "run", handed.append)
    assert main(command + flags) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("keras-rda")
    assert "--global-clipnorm" in err and named in err
    assert not handed


def test_the_zoo_gives_keras_one_clip():
    rda = get_model_spec("rda")
    assert rda.gradient_clip() == {"clipvalue": 1.0}  # the paper's, as before
    clip = rda.gradient_clip(clipvalue=0.0, global_clipnorm=1.0)
    assert clip == {"global_clipnorm": 1.0}
    optimizer = rda.optimizer(clipvalue=0.0, global_clipnorm=1.0)
    assert optimizer.global_clipnorm == 1.0 and optimizer.clipvalue is None
    with pytest.raises(ValueError, match="`global_clipnorm`.*clipvalue=1.0"):
        rda.gradient_clip(global_clipnorm=1.0)  # beside the zoo's clip
    with pytest.raises(ValueError, match="`global_clipnorm`.*clipnorm=5.0"):
        rda.gradient_clip(clipvalue=0.0, clipnorm=5.0, global_clipnorm=1.0)


def test_a_zoo_entry_has_no_clip_of_its_own_but_the_papers():
    """The global-norm clip is the command line's (one way to ask for it)."""
    assert "global_clipnorm" not in {f.name for f in dataclasses.fields(ModelSpec)}
    with pytest.raises(TypeError, match="global_clipnorm"):
        register_model("never-registered", global_clipnorm=1.0)
