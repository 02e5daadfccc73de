"""`keras-rda train` and `compare`: records, plots, seeds, logs, TensorBoard."""

import json

import pytest

from keras_rda.lab.cli import main
from tests.lab.cli.conftest import TINY
from tests.lab.cli.conftest import run_cli


def test_train_writes_records(tmp_path, capsys):
    code = main(
        ["train", "classify-length", "--model", "rda", "--seq-len", "10"]
        + ["--out", str(tmp_path)]
        + TINY
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| rda |" in out and "max_length 1000 -> 10" in out
    data = json.loads((tmp_path / "classify-length-rda.json").read_text())
    assert data["task_params"]["max_length"] == 10
    run = data["runs"][0]
    assert run["settings"]["units"] == 3 and run["settings"]["seed"] == 0
    assert [c["step"] for c in run["curve"]] == [2, 4]
    assert run["seconds"] > 0 and run["cpu_seconds"] > 0
    # The record's kind and its command, structured, without scratch outputs.
    ((argv, env),) = [(c["argv"], c["env"]) for c in data["commands"]]
    assert data["kind"] == "comparison" and env == {}
    assert argv[:5] == ["keras-rda", "train", "classify-length", "--model", "rda"]
    assert "--out" not in argv and str(tmp_path) not in argv
    assert data["versions"]["tensorflow"] and data["machine"]["cpu_count"] >= 1
    assert (tmp_path / "classify-length-rda.png").stat().st_size > 0


def test_saves_memory_heatmap_for_memory_models(tmp_path, capsys):
    code = main(
        ["train", "uw-copy", "--model", "dnc-uw", "--seq-len", "8"]
        + ["--out", str(tmp_path)]
        + TINY
    )
    assert code == 0
    assert "memory write/read weights" in capsys.readouterr().out
    assert (tmp_path / "uw-copy-dnc-uw-memory.png").stat().st_size > 0
    assert not list(tmp_path.glob("*lstm*memory*"))


def test_compare_over_seeds_with_results_dir(tmp_path, capsys):
    results = tmp_path / "results"
    code = main(
        ["compare", "multicopy", "--models", "rda,lstm", "--seeds", "0,1"]
        + ["--task-arg", "num_copies=2", "--out", str(tmp_path / "out")]
        + ["--results-dir", str(results)]
        + TINY
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "median [range]" in out and "| rda | 2 |" in out and "| lstm | 2 |" in out
    data = json.loads((results / "multicopy-compare.json").read_text())
    assert [(r["model"], r["settings"]["seed"]) for r in data["runs"]] == [
        ("rda", 0),
        ("rda", 1),
        ("lstm", 0),
        ("lstm", 1),
    ]
    # Different seeds: different initial weights, so different curves.
    assert data["runs"][0]["curve"] != data["runs"][1]["curve"]
    assert data["task_params"]["num_copies"] == 2
    assert (tmp_path / "out" / "multicopy-compare.png").exists()
    assert not (tmp_path / "out" / "multicopy-compare.json").exists()


def test_name_keeps_a_second_comparison_of_the_task_apart(tmp_path, capsys):
    # The same task with other settings under --name: its own record, plot,
    # heat maps and checkpoints; the default-named comparison is untouched.
    base = ["compare", "uw-copy", "--models", "dnc-uw", "--seq-len", "6"]
    base += ["--out", str(tmp_path)] + TINY
    assert main(base) == 0
    default = (tmp_path / "uw-copy-compare.json").read_text()
    named = base + ["--name", "uw-copy-ln", "--model-arg", "controller=lstm_ln"]
    assert main(named) == 0
    out = capsys.readouterr().out
    # The default run finished: reusing its checkpoints would print this.
    assert "finished earlier" not in out and "resuming" not in out
    assert (tmp_path / "uw-copy-compare.json").read_text() == default
    data = json.loads((tmp_path / "uw-copy-ln.json").read_text())
    # The page names the record's own place; the command leaves it out.
    (command,) = data["commands"]
    assert "--name" not in command["argv"] and "controller=lstm_ln" in command["argv"]
    assert data["runs"][0]["settings"]["model_kwargs"] == {"controller": "lstm_ln"}
    assert (tmp_path / "uw-copy-ln.png").exists()
    assert (tmp_path / "uw-copy-ln-dnc-uw-memory.png").exists()
    assert (tmp_path / "checkpoints" / "uw-copy-ln" / "dnc-uw-seed0").is_dir()


@pytest.mark.parametrize("name", ["", "results/x", ".hidden", "a\\b"])
def test_bad_name_is_refused_before_anything_is_written(tmp_path, capsys, name):
    command = ["compare", "reber", "--models", "gru", "--name", name]
    assert main(command + ["--out", str(tmp_path / "out")] + TINY) == 2
    assert "--name expects a plain file name" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_output_to_a_file_is_one_line_per_evaluation(tmp_path):
    # stdout is a pipe here: no progress bar, one line per evaluation.
    steps = ["--steps", "40", "--eval-every", "10", "--batch-size", "4"]
    result = run_cli(
        ["train", "reber", "--model", "gru", "--units", "3", "--eval-examples", "6"]
        + steps
        + ["--out", str(tmp_path)]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stdout.splitlines() if " step " in line]
    assert [line.split(":")[0] for line in lines] == [
        f"gru (seed 0) step {s}/40" for s in (10, 20, 30, 40)
    ]
    assert "\r" not in result.stdout and "\b" not in result.stdout
    # Bounded: the description, 4 lines, the table; no per-batch output.
    assert len(result.stdout) < 3000, len(result.stdout)


def test_tensorboard_logs_hold_the_records_scalars(tmp_path, capsys):
    import tensorflow as tf

    board = tmp_path / "tb"
    code = main(
        ["train", "reber", "--model", "gru", "--tensorboard", str(board)]
        + ["--out", str(tmp_path)]
        + TINY
    )
    assert code == 0
    run = json.loads((tmp_path / "reber-gru.json").read_text())["runs"][0]
    files = list((board / "gru-seed0").glob("events.out.tfevents.*"))
    assert files
    logged = {}
    for event in tf.compat.v1.train.summary_iterator(str(files[0])):
        for value in event.summary.value:
            number = float(tf.make_ndarray(value.tensor))
            logged[(value.tag, event.step)] = number
            assert value.metadata.plugin_data.plugin_name == "scalars"
    expected = {
        (key, point["step"]): value
        for point in run["curve"]
        for key, value in point.items()
        if key != "step"
    }
    assert set(logged) == set(expected)
    assert {tag for tag, _ in logged} >= {"loss", "accuracy", "val_loss"}
    for key, value in expected.items():
        assert abs(logged[key] - value) <= 1e-6 * max(1.0, abs(value)), key


def test_units_per_model_as_the_uw_paper_sizes_them(tmp_path, capsys):
    results = tmp_path / "results"
    code = main(
        ["compare", "uw-copy", "--models", "lstm,dnc-uw", "--seq-len", "8"]
        + ["--out", str(tmp_path), "--results-dir", str(results)]
        + TINY
        + ["--units", "3,lstm=5"]
    )
    assert code == 0
    data = json.loads((results / "uw-copy-compare.json").read_text())
    assert {r["model"]: r["settings"]["units"] for r in data["runs"]} == {
        "lstm": 5,
        "dnc-uw": 3,
    }
    # LSTM(5) on 11 inputs and a 10-way readout: 4*5*(11+5+1) + 10*(5+1).
    assert data["runs"][0]["params"] == 4 * 5 * 17 + 10 * 6


def test_plain_units_replace_the_paper_scales_per_model_sizes(tmp_path, capsys):
    results = tmp_path / "results"
    code = main(
        ["compare", "uw-copy", "--scale", "paper", "--models", "lstm,dnc-cuw"]
        + ["--seq-len", "8", "--out", str(tmp_path), "--results-dir", str(results)]
        + TINY
    )
    assert code == 0
    data = json.loads((results / "uw-copy-compare.json").read_text())
    assert [r["settings"]["units"] for r in data["runs"]] == [3, 3]


def test_paper_scale_trains_every_uw_model_with_the_papers_clip(tmp_path, capsys):
    """Section 3.2 fixes lr 1e-3 and clipping 10 for all models: the LSTM
    baseline too, whose zoo entry (the RDA paper's) clips at 1. `--clipvalue`
    overrides it for every model, and 0 means no clipping."""
    results = tmp_path / "results"
    command = ["compare", "uw-copy", "--scale", "paper", "--models", "lstm,dnc"]
    command += ["--seq-len", "6", "--out", str(tmp_path), "--results-dir", str(results)]
    assert main(command + TINY) == 0
    data = json.loads((results / "uw-copy-compare.json").read_text())
    assert [r["settings"]["clipvalue"] for r in data["runs"]] == [10.0, 10.0]
    assert [r["settings"]["learning_rate"] for r in data["runs"]] == [1e-3, 1e-3]

    assert main(command + TINY + ["--clipvalue", "0", "--restart"]) == 0
    data = json.loads((results / "uw-copy-compare.json").read_text())
    assert [r["settings"]["clipvalue"] for r in data["runs"]] == [0.0, 0.0]

    assert main(command + TINY + ["--clipvalue", "-1"]) == 2
    assert "--clipvalue" in capsys.readouterr().err


@pytest.mark.parametrize(
    "task, models, seq_len, learning_rate, clipvalue",
    [
        # WeiNet appendix: Adam 1e-4, gradients clipped to [-5, 5].
        ("associative-recall", "lstm,weinet-rc", "9", 1e-4, 5.0),
        # RWA paper 3.1 and Discussion: Adam 1e-3, no clipping.
        ("adding-problem", "lstm,rwa", "8", 1e-3, 0.0),
        ("variable-copy", "lstm,rwa", "4", 1e-3, 0.0),
    ],
)
def test_paper_scale_trains_every_model_with_the_papers_optimiser(
    tmp_path, task, models, seq_len, learning_rate, clipvalue
):
    """The WeiNet and RWA papers train every model of a comparison alike:
    the LSTM too, whose zoo entry (the RDA paper's) has 1e-3 and a clip
    of 1, and in the RWA paper's tasks the RWA too."""
    results = tmp_path / "results"
    command = ["compare", task, "--scale", "paper", "--models", models]
    command += ["--seq-len", seq_len, "--out", str(tmp_path)]
    assert main(command + ["--results-dir", str(results)] + TINY) == 0
    data = json.loads((results / f"{task}-compare.json").read_text())
    settings = [run["settings"] for run in data["runs"]]
    assert [s["learning_rate"] for s in settings] == [learning_rate] * 2
    assert [s["clipvalue"] for s in settings] == [clipvalue] * 2


def test_clipnorm_replaces_the_element_wise_clip(tmp_path, capsys):
    """`--clipnorm 5` (the UW authors' code) clips each gradient tensor's
    norm; the paper scale's element-wise clip is dropped, not mixed in
    (Keras would ignore it next to `clipnorm`), and recorded as 0."""
    results = tmp_path / "results"
    command = ["compare", "uw-copy", "--scale", "paper", "--models", "dnc"]
    command += ["--seq-len", "6", "--out", str(tmp_path), "--results-dir", str(results)]
    assert main(command + TINY + ["--clipnorm", "5"]) == 0
    (run,) = json.loads((results / "uw-copy-compare.json").read_text())["runs"]
    assert run["settings"]["clipnorm"] == 5.0
    assert run["settings"]["clipvalue"] == 0.0
    for bad in (["--clipnorm", "0"], ["--clipnorm", "5", "--clipvalue", "10"]):
        assert main(command + TINY + bad) == 2
        assert "--clipnorm" in capsys.readouterr().err


def test_optimizer_clipnorm():
    from keras_rda.lab.zoo.registry import get_model_spec

    spec = get_model_spec("dnc")  # clips element-wise at 10 by default
    optimizer = spec.optimizer(clipvalue=0.0, clipnorm=5.0)
    assert optimizer.clipnorm == 5.0 and optimizer.clipvalue is None
    with pytest.raises(ValueError, match="`clipnorm`"):
        spec.optimizer(clipnorm=5.0)


def test_optimizer_clip_override():
    from keras_rda.lab.zoo.registry import get_model_spec

    spec = get_model_spec("lstm")
    assert spec.clipvalue == 1.0
    assert spec.optimizer().clipvalue == 1.0
    assert spec.optimizer(clipvalue=10.0).clipvalue == 10.0
    assert spec.optimizer(clipvalue=0.0).clipvalue is None


def test_bad_units_name_the_flag(tmp_path, capsys):
    for units in ("0", "lstm=", "=5", "lstm=x", "nosuchmodel=4"):
        code = main(
            ["compare", "uw-copy", "--models", "lstm", "--out", str(tmp_path)]
            + TINY
            + ["--units", units]
        )
        assert code == 2, units
        err = capsys.readouterr().err
        assert "--units" in err or "nosuchmodel" in err, (units, err)
