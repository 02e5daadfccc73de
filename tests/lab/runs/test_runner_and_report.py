"""The runner (training, checkpoints, resume) and the report (tables, records)."""

import json

import numpy as np
import pytest

from keras_rda.lab.reporting import report
from keras_rda.lab.runs.runner import RunResult
from keras_rda.lab.runs.runner import threshold_met
from keras_rda.lab.runs.runner import train
from keras_rda.lab.tasks import get_task

TINY = dict(steps=6, batch_size=4, units=3, eval_every=2, eval_examples=8, verbose=0)


def test_threshold_met():
    assert threshold_met(("accuracy", ">", 0.9), {"val_accuracy": 0.95})
    assert not threshold_met(("accuracy", ">", 0.9), {"val_accuracy": 0.9})
    assert threshold_met(("loss", "<", 0.1), {"val_loss": 0.01})
    assert threshold_met(("crossentropy", "<", 0.1), {"val_loss": 0.01})
    assert not threshold_met(("loss", "<", 0.1), {"loss": 0.01})  # held-out only
    assert not threshold_met(None, {"val_loss": 0.0})


def test_train_records_curve_and_threshold():
    task = get_task("reber", max_length=12)
    result = train(task, "gru", **TINY)
    assert [c["step"] for c in result.curve] == [2, 4, 6]
    assert set(result.final) >= {"loss", "accuracy"}
    # Accuracy is a multiple of 1/8 on 8 held-out sentences.
    assert result.final["accuracy"] * 8 == pytest.approx(
        round(result.final["accuracy"] * 8)
    )
    first = [c for c in result.curve if c["val_accuracy"] > 0.5]
    assert result.steps_to_threshold == (first[0]["step"] if first else None)
    assert result.params > 0 and not result.diverged


def test_clipnorm_reaches_the_optimizer_and_is_checked_first(tmp_path):
    task = get_task("reber", max_length=12)
    result = train(task, "gru", clipvalue=0.0, clipnorm=5.0, **TINY)
    assert result.keras_model.optimizer.clipnorm == 5.0
    assert result.keras_model.optimizer.clipvalue is None
    assert result.settings["clipnorm"] == 5.0
    # The zoo GRU clips element-wise at 1: refused before a checkpoint
    # directory is claimed, so a corrected rerun there is not a mismatch.
    with pytest.raises(ValueError, match="`clipnorm`"):
        train(task, "gru", clipnorm=5.0, checkpoint_dir=tmp_path / "run", **TINY)
    assert not (tmp_path / "run").exists()


def test_stop_at_threshold():
    task = get_task("addition", length=5)
    task.threshold = ("loss", "<", 1e9)  # met at the first evaluation
    result = train(
        task,
        "lstm",
        steps=10,
        batch_size=4,
        units=3,
        eval_every=2,
        eval_examples=8,
        verbose=0,
        stop_at_threshold=True,
    )
    assert result.steps_to_threshold == 2 and result.steps == 2


def _run(model, steps, final, seed=0, **extra):
    return {
        "model": model,
        "task": "multicopy",
        "steps": steps,
        "curve": [{"step": steps, "val_accuracy": final, "val_loss": 0.1}],
        "steps_to_threshold": extra.pop("reached", None),
        "final": {"accuracy": final, "loss": 0.1},
        "seconds": 3.0,
        "cpu_seconds": 2.0,
        "params": 10,
        "settings": {"seed": seed},
        "diverged": extra.pop("diverged", False),
    }


def _record(runs):
    task = get_task("multicopy")
    return {
        "task": task.name,
        "metric": "accuracy",
        "baseline": task.baseline,
        "threshold": list(task.threshold),
        "runs": runs,
    }


def test_report_table_json_png(tmp_path):
    runs = [
        RunResult(
            "rda",
            "multicopy",
            400,
            [{"step": 200, "val_accuracy": 0.995, "val_loss": 0.02}],
            200,
            {"accuracy": 0.995, "loss": 0.02},
            3.0,
            2.5,
            10,
        ),
        RunResult(
            "rwa",
            "multicopy",
            400,
            [{"step": 200, "val_accuracy": 0.7, "val_loss": float("nan")}],
            None,
            {"accuracy": 0.7},
            2.0,
            1.5,
            9,
            diverged=True,
        ),
    ]
    task = get_task("multicopy")
    data = report.record(runs, task, "small", "keras-rda compare multicopy")
    lines = report.results_table(data).splitlines()
    assert "accuracy > 0.99" in lines[0]
    assert lines[2].startswith("| rda | 200 | 0.9950 |")
    assert lines[3].startswith("| rwa | > 400 (diverged) | 0.7000 |")
    path = report.write_json(tmp_path / "r.json", data)
    data = json.loads(path.read_text())
    assert data["runs"][1]["curve"][0]["val_loss"] is None  # NaN -> null
    assert data["threshold"] == ["accuracy", ">", 0.99]
    # Provenance: what is needed to trust and repeat the run.
    assert data["command"] == "keras-rda compare multicopy"
    assert data["keras_rda_version"] and "commit" in data["git"]
    assert set(data["versions"]) >= {"keras", "backend", "numpy", "python"}
    assert data["machine"]["cpu_count"] >= 1
    assert data["runs"][0]["cpu_seconds"] == 2.5
    png = report.plot_curves(data, tmp_path / "c.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_table_over_seeds_gives_median_and_range(tmp_path):
    runs = [
        _run("rda", 400, 0.995, 0, reached=300),
        _run("rda", 400, 0.999, 1, reached=100),
        _run("rda", 400, 0.991, 2, reached=200),
        _run("lstm", 400, 0.50, 0),
        _run("lstm", 400, 0.60, 1, reached=400),
        _run("lstm", 400, 0.70, 2),
    ]
    lines = report.results_table(_record(runs)).splitlines()
    assert "median [range]" in lines[0]
    # Independent: median of {300, 100, 200} is 200; range 100..300.
    assert lines[2].startswith("| rda | 3 | 200 [100, 300] | 0.9950 [0.9910, 0.9990]")
    # Two of three never met it: the median is "more than the steps run".
    assert lines[3].startswith("| lstm | 3 | > 400 [400, > 400] (1/3 met it) ")
    assert "0.6000 [0.5000, 0.7000]" in lines[3]
    png = report.plot_curves(_record(runs), tmp_path / "s.png")
    assert png.stat().st_size > 0


def test_rebuild_tables_between_markers(tmp_path):
    results = tmp_path / "results"
    report.write_json(results / "a.json", _record([_run("rda", 400, 0.995)]))
    report.write_json(
        results / "benchmarks" / "speed.json",
        {
            "command": "python benchmarks/x.py --json",
            "columns": ["unit", "ratio"],
            "rows": [["rda", "1.20x"]],
            "notes": ["Ratios to the LSTM."],
        },
    )
    text = (
        "intro\n<!-- keras-rda report: a -->\nold table\n<!-- /keras-rda report -->\n"
        "middle\n<!-- keras-rda report: benchmarks/speed -->\n"
        "<!-- /keras-rda report -->\nend\n"
    )
    new, names = report.rebuild_tables(text, results)
    assert names == ["a", "benchmarks/speed"]
    assert (
        "old table" not in new and new.startswith("intro\n") and new.endswith("end\n")
    )
    assert "| rda | > 400 | 0.9950 |" in new
    assert "| unit | ratio |\n|---|---:|\n| rda | 1.20x |" in new
    assert "Ratios to the LSTM." in new
    assert (
        "`python benchmarks/x.py --json` (record `results/benchmarks/speed.json`)"
        in new
    )
    again, _ = report.rebuild_tables(new, results)
    assert again == new  # idempotent
    example = (
        "    <!-- keras-rda report: a -->\n    x\n    <!-- /keras-rda report -->\n"
    )
    assert report.rebuild_tables(example, results) == (example, [])  # indented
    with pytest.raises(FileNotFoundError, match="missing"):
        report.rebuild_tables(
            "<!-- keras-rda report: missing -->\n<!-- /keras-rda report -->", results
        )


def test_interrupted_run_resumes_as_uninterrupted(tmp_path):
    """Stopped after 2 of 3 evaluations (a crash), rerun: same curve and weights."""
    import keras_rda.lab.runs.runner as runner

    task = get_task("reber", max_length=12)
    reference = train(task, "gru", **TINY)
    original = runner.make_recorder

    def crashing_recorder(*args, **kwargs):
        recorder = original(*args, **kwargs)
        on_epoch_end = recorder.on_epoch_end

        def crash_after(epoch, logs=None):
            on_epoch_end(epoch, logs)
            if epoch == 1:
                raise KeyboardInterrupt

        recorder.on_epoch_end = crash_after
        return recorder

    runner.make_recorder = crashing_recorder
    try:
        with pytest.raises(KeyboardInterrupt):
            train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    finally:
        runner.make_recorder = original
    # The recorder runs before the checkpoint callback: the crash at the
    # second evaluation loses that interval, the first one is kept.
    state = json.loads((tmp_path / "latest.json").read_text())
    assert state["epoch"] == 1 and [c["step"] for c in state["curve"]] == [2]
    resumed = train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    assert [c["step"] for c in resumed.curve] == [2, 4, 6]
    for got, want in zip(resumed.curve, reference.curve):
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    for a, b in zip(resumed.keras_model.weights, reference.keras_model.weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert (tmp_path / "result.json").exists()
    assert not (tmp_path / "latest.json").exists()
    # A finished run is returned, not retrained; other settings are refused.
    again = train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    assert again.curve == resumed.curve
    with pytest.raises(ValueError, match="different run"):
        train(task, "gru", checkpoint_dir=tmp_path, **{**TINY, "units": 4})


def test_finished_run_asked_for_more_steps_trains_on_as_one_run(tmp_path):
    """A finished run rerun with more steps goes on from where it ended: its
    curve and weights are those of one run of the longer length."""
    task = get_task("reber", max_length=12)
    longer = {**TINY, "steps": 10}
    reference = train(task, "gru", **longer)
    first = train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    assert [c["step"] for c in first.curve] == [2, 4, 6]
    # A run.json written before runs could be extended holds the steps.
    fingerprint = json.loads((tmp_path / "run.json").read_text())
    assert "steps" not in fingerprint["settings"]
    fingerprint["settings"]["steps"] = 6
    (tmp_path / "run.json").write_text(json.dumps(fingerprint))
    extended = train(task, "gru", checkpoint_dir=tmp_path, **longer)
    assert [c["step"] for c in extended.curve] == [2, 4, 6, 8, 10]
    for got, want in zip(extended.curve, reference.curve):
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    for a, b in zip(extended.keras_model.weights, reference.keras_model.weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert extended.settings["steps"] == 10
    assert extended.cpu_seconds > first.cpu_seconds  # the totals go on
    assert json.loads((tmp_path / "result.json").read_text())["steps"] == 10
    assert not (tmp_path / "latest.json").exists()
    assert not list(tmp_path.glob("ckpt-*"))
    # Asked for fewer steps than it has trained, it is refused, not cut.
    with pytest.raises(ValueError, match="`steps`, expected at least the 10 steps"):
        train(task, "gru", checkpoint_dir=tmp_path, **TINY)


def test_only_a_run_that_trained_to_its_end_is_continued():
    from keras_rda.lab.runs.runner import _can_continue

    run = {
        "steps": 6,
        "settings": {"steps": 6},
        "steps_to_threshold": None,
        "diverged": False,
    }
    assert _can_continue(run, 10, stop_at_threshold=False)
    assert not _can_continue(run, 6, stop_at_threshold=False)
    # Stopped early (on a NaN loss, or at its threshold): a longer run
    # would have stopped there too.
    assert not _can_continue({**run, "steps": 4, "diverged": True}, 10, False)
    met = {**run, "steps": 4, "steps_to_threshold": 4}
    assert not _can_continue(met, 10, stop_at_threshold=True)
    # Met its threshold at its last step but was not asked to stop there.
    assert _can_continue({**run, "steps_to_threshold": 6}, 10, False)


def _enwik8_run(model, valid, test_bpc, speeds, command="keras-rda enwik8"):
    """A finished run as `keras-rda enwik8` hands it over: a resumed run
    logs the steps after its checkpoint twice (the later value counts)."""
    history = [
        {"step": 10 * (i + 1), "train/chars_per_sec": s} for i, s in enumerate(speeds)
    ]
    history += [{"step": step, "valid/bpc": bpc} for step, bpc in valid.items()]
    history.insert(1, {"step": 20, "valid/bpc": 99.0})  # redone after a resume
    return {
        "model": model,
        "step": max(valid),
        "valid_bpc": valid[max(valid)],
        "test_bpc": test_bpc,
        "command": f"{command} --model {model}",
        "seed": 0,
        "history": history,
    }


def test_enwik8_record_collects_one_run_per_model(tmp_path):
    path = tmp_path / "enwik8-small.json"
    report.add_enwik8_run(
        path, _enwik8_run("lstm", {20: 4.5, 40: 3.25}, 3.5, [5.0, 30.0, 10.0, 20.0])
    )
    report.add_enwik8_run(
        path, _enwik8_run("rda", {20: 9.0, 40: 8.0}, 8.5, [1.0, 2.0, 3.0])
    )
    # Rerunning a model replaces its run; the other model's run stays.
    report.add_enwik8_run(
        path, _enwik8_run("rda", {20: 4.0, 40: 2.875}, 3.125, [1.0, 2.0, 3.0])
    )
    data = json.loads(path.read_text())
    assert list(data["runs"]) == ["lstm", "rda"]
    lstm = data["runs"]["lstm"]
    # The step logged twice keeps its later value; steps are in order.
    assert [h["step"] for h in lstm["history"]] == [10, 20, 30, 40]
    assert lstm["history"][1]["valid/bpc"] == 4.5
    # Median speed without the first interval (compilation): of 30, 10, 20.
    assert lstm["median_chars_per_sec"] == 20.0
    assert lstm["git"]["commit"] and lstm["command"].endswith("--model lstm")
    text = report.render(data, "enwik8-small")
    assert "| lstm | 4.500 / **3.250** | 3.500 | 20 |" in text
    assert "| rda | 4.000 / **2.875** | 3.125 | 2 |" in text
    assert "valid BPC at 20 / 40 steps" in text
    assert "keras-rda enwik8 --model lstm\nkeras-rda enwik8 --model rda" in text


def test_table_record_from_two_commands(tmp_path):
    path = tmp_path / "t.json"
    table = {"benchmark": "b", "columns": ["model", "x"], "rows": [["a", "1"]]}
    report.write_table_record(path, table, "python b.py --n 1", trials=[{"n": 1}])
    report.write_table_record(
        path,
        {**table, "rows": [["b", "2"]]},
        "python b.py --n 2",
        append=True,
        trials=[{"n": 2}],
    )
    data = json.loads(path.read_text())
    assert data["rows"] == [["a", "1"], ["b", "2"]]
    assert data["trials"] == [{"n": 1}, {"n": 2}]
    assert data["command"] == "python b.py --n 1 && python b.py --n 2"
    assert "| a | 1 |\n| b | 2 |" in report.render(data, "t")
    # Without --append the record starts over.
    report.write_table_record(path, table, "python b.py --n 3")
    assert json.loads(path.read_text())["rows"] == [["a", "1"]]


@pytest.mark.parametrize("learn_initial_state", [False, True])
def test_jit_warns_of_keras_rnns_returning_sequences(learn_initial_state):
    """Under TensorFlow's XLA a Keras LSTM returning sequences costs O(T^2)
    per sequence (README "Speed"): compiling one with `jit_compile` warns,
    on TensorFlow only; the RDA layer, a Keras LSTM that returns its last
    step, and no XLA do not warn."""
    import warnings

    import keras

    from keras_rda.lab.runs.runner import compile_for_task
    from keras_rda.lab.zoo.registry import get_model_spec

    def warned(model_name, task, jit_compile, **kwargs):
        spec = get_model_spec(model_name)
        model = spec.build(task, units=3, **kwargs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compile_for_task(model, task, spec.optimizer(), jit_compile)
        return [str(w.message) for w in caught if "O(T^2)" in str(w.message)]

    per_step = get_task("multicopy", num_copies=2, copy_length=2, block_length=6)
    last_step = get_task("classify-length", max_length=10)
    initial_state = dict(learn_initial_state=learn_initial_state)
    on_tensorflow = keras.backend.backend() == "tensorflow"
    for name, keras_name in [("lstm", "LSTM"), ("gru", "GRU")]:
        messages = warned(name, per_step, True, **initial_state)
        if on_tensorflow:
            assert len(messages) == 1
            assert f"Keras's {keras_name} '{name}'" in messages[0]
            assert "drop --jit" in messages[0]
        else:
            assert messages == []
    assert warned("lstm", per_step, False, **initial_state) == []
    assert warned("lstm", last_step, True, **initial_state) == []
    assert warned("rda", per_step, True) == []
