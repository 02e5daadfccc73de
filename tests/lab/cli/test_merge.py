"""`keras-rda merge`: a comparison run in pieces becomes one record."""

import json

from keras_rda.lab.cli import main


def _write(path, seed, model="rda"):
    record = {
        "kind": "comparison",
        "task": "reber",
        "task_params": {},
        "commands": [
            {
                "argv": ["keras-rda", "compare", "reber", "--seeds", str(seed)],
                "env": {},
            }
        ],
        "git": {"commit": f"c{seed}"},
        "created": f"2026-01-0{seed + 1}T00:00:00+00:00",
        "runs": [
            {"model": model, "settings": {"seed": seed}, "final": {"accuracy": 0.5}}
        ],
    }
    path.write_text(json.dumps(record))
    return str(path)


def test_merge_writes_one_record_of_every_piece(tmp_path, capsys):
    pieces = [_write(tmp_path / f"seed{seed}.json", seed) for seed in (1, 0)]
    out = tmp_path / "reber-compare.json"
    assert main(["merge", *pieces, "--out", str(out)]) == 0
    merged = json.loads(out.read_text())
    assert [run["settings"]["seed"] for run in merged["runs"]] == [0, 1]
    assert [run["git"]["commit"] for run in merged["runs"]] == ["c0", "c1"]
    # Still a comparison, with every piece's command in the order given.
    assert merged["kind"] == "comparison"
    assert [c["argv"][-1] for c in merged["commands"]] == ["1", "0"]
    assert "2 run(s): rda seed 0, rda seed 1" in capsys.readouterr().out


def test_merge_replace_puts_a_rerun_in_place_of_its_models_runs(tmp_path):
    old = json.loads(open(_write(tmp_path / "old.json", 0)).read())
    old["runs"].append({**old["runs"][0], "model": "lstm"})
    (tmp_path / "old.json").write_text(json.dumps(old))
    rerun = _write(tmp_path / "rerun.json", 0)
    rerun_record = json.loads(open(rerun).read())
    rerun_record["runs"][0]["final"] = {"accuracy": 0.9}
    (tmp_path / "rerun.json").write_text(json.dumps(rerun_record))
    out = tmp_path / "old.json"
    assert main(["merge", str(out), rerun, "--replace", "--out", str(out)]) == 0
    runs = json.loads(out.read_text())["runs"]
    assert [(r["model"], r["final"]["accuracy"]) for r in runs] == [
        ("rda", 0.9),
        ("lstm", 0.5),
    ]


def test_merge_errors_are_one_line_naming_the_record(tmp_path, capsys):
    piece = _write(tmp_path / "seed0.json", 0)
    missing = str(tmp_path / "seed1.json")
    assert main(["merge", piece, missing, "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"RECORD {missing!r}: it is missing" in err
    (tmp_path / "cut.json").write_text('{"task": "reber", "runs": [')
    cut = str(tmp_path / "cut.json")
    assert main(["merge", piece, cut, "--out", str(tmp_path / "x.json")]) == 2
    assert f"RECORD {cut!r}: it is not complete JSON" in capsys.readouterr().err
    twice = _write(tmp_path / "again.json", 0)
    assert main(["merge", piece, twice, "--out", str(tmp_path / "x.json")]) == 2
    assert "'rda' with seed 0 is in two records" in capsys.readouterr().err
    assert main(["merge", piece, "--out", str(tmp_path / "x.json")]) == 2
    assert "two RECORDs or more" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_merge_plot_draws_the_joined_curves(tmp_path, capsys, monkeypatch):
    from keras_rda.lab.reporting import report

    drawn = []
    plot_curves = report.plot_curves

    def recording_plot(data, path, title=None):
        drawn.append(data)
        return plot_curves(data, path, title)

    monkeypatch.setattr(report, "plot_curves", recording_plot)
    pieces = []
    for seed in (0, 1):
        record = json.loads(open(_write(tmp_path / f"seed{seed}.json", seed)).read())
        record["metric"] = "accuracy"
        record["runs"][0]["curve"] = [
            {"step": step, "val_accuracy": 0.1 * step + 0.05 * seed}
            for step in (1, 2, 3)
        ]
        (tmp_path / f"seed{seed}.json").write_text(json.dumps(record))
        pieces.append(str(tmp_path / f"seed{seed}.json"))
    png = tmp_path / "plots" / "reber-compare.png"
    out = str(tmp_path / "reber-compare.json")
    assert main(["merge", *pieces, "--out", out, "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [[r["settings"]["seed"] for r in data["runs"]] for data in drawn] == [[0, 1]]
    assert f"Drew {png}" in capsys.readouterr().out
