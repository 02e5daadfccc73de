"""`report`: results tables, JSON records, curves, and the docs' tables."""

import json

import pytest

from keras_rda.lab.reporting import report
from keras_rda.lab.reporting.records import json_safe
from keras_rda.lab.reporting.records import metric_key
from keras_rda.lab.runs.recording import RunResult
from keras_rda.lab.tasks import get_task


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
        "kind": "comparison",
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
    command = {"argv": ["keras-rda", "compare", "multicopy"], "env": {}}
    data = report.record(runs, task, "small", command)
    lines = report.results_table(data).splitlines()
    assert "accuracy > 0.99" in lines[0]
    assert lines[2].startswith("| rda | 200 | 0.9950 |")
    assert lines[3].startswith("| rwa | > 400 (diverged) | 0.7000 |")
    path = report.write_json(tmp_path / "r.json", data)
    data = json.loads(path.read_text())
    assert data["runs"][1]["curve"][0]["val_loss"] is None  # NaN -> null
    assert data["threshold"] == ["accuracy", ">", 0.99]
    # Provenance: what is needed to trust and repeat the run.
    assert data["kind"] == "comparison" and data["commands"] == [command]
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
            "kind": "table",
            "commands": [{"argv": ["python", "x.py", "--json", "x"], "env": {}}],
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
        "`python x.py --json results/benchmarks/speed.json` (record "
        "`results/benchmarks/speed.json`)" in new
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


def _enwik8_run(model, valid, test_bpc, speeds):
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
        "command": {"argv": ["keras-rda", "enwik8", "--model", model], "env": {}},
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
    assert data["kind"] == "enwik8" and lstm["git"]["commit"]
    text = report.render(data, "enwik8-small")
    assert "| lstm | 4.500 / **3.250** | 3.500 | 20 |" in text
    assert "| rda | 4.000 / **2.875** | 3.125 | 2 |" in text
    assert "valid BPC at 20 / 40 steps" in text
    assert "keras-rda enwik8 --model lstm\nkeras-rda enwik8 --model rda" in text


def test_table_record_from_two_commands(tmp_path):
    path = tmp_path / "t.json"
    table = {"benchmark": "b", "columns": ["model", "x"], "rows": [["a", "1"]]}
    one, two = ({"argv": ["python", "b.py", "--n", n], "env": {}} for n in "12")
    report.write_table_record(path, table, one, trials=[{"n": 1}])
    report.write_table_record(
        path, {**table, "rows": [["b", "2"]]}, two, append=True, trials=[{"n": 2}]
    )
    data = json.loads(path.read_text())
    assert data["rows"] == [["a", "1"], ["b", "2"]]
    assert data["trials"] == [{"n": 1}, {"n": 2}]
    assert data["kind"] == "table" and data["commands"] == [one, two]
    assert "| a | 1 |\n| b | 2 |" in report.render(data, "t")
    # Without --append the record starts over.
    report.write_table_record(path, table, one, kind="timing")
    assert json.loads(path.read_text())["kind"] == "timing"
    assert json.loads(path.read_text())["rows"] == [["a", "1"]]


def test_record_format_helpers():
    assert metric_key("crossentropy") == "loss" and metric_key("mse") == "mse"
    assert metric_key("bpc") == "bpc"  # unknown metrics are their own key
    value = {"a": [1.0, float("nan")], "b": (float("inf"), "x"), "c": 2}
    assert json_safe(value) == {"a": [1.0, None], "b": [None, "x"], "c": 2}
