"""`keras_rda.lab.reporting.enwik8_plot`: BPC curves from run directories or
from an enwik8 record."""

import json

from keras_rda.lab.reporting import enwik8_plot


def test_a_resumed_run_keeps_the_last_value_logged_for_each_step():
    history = [
        {"step": 1, "train/bpc": 3.0},
        {"step": 2, "train/bpc": 2.5, "valid/bpc": 2.6},
        {"step": 2, "train/bpc": 2.4},  # logged again after a resume
    ]
    assert enwik8_plot.series_of(history) == {
        "train/bpc": [(1, 3.0), (2, 2.4)],
        "valid/bpc": [(2, 2.6)],
    }


def test_the_plot_is_drawn_from_a_record_or_from_run_directories(tmp_path):
    history = [{"step": s, "train/bpc": 4.0 / s, "valid/bpc": 4.5 / s} for s in (1, 2)]
    record = tmp_path / "enwik8.json"
    record.write_text(json.dumps({"runs": {"rda": {"history": history}}}))
    enwik8_plot.main(["--record", str(record), "--out", str(tmp_path / "a.png")])
    run = tmp_path / "runs" / "rda"
    run.mkdir(parents=True)
    (run / "history.jsonl").write_text("\n".join(map(json.dumps, history)))
    enwik8_plot.main([str(run), "--out", str(tmp_path / "b.png")])
    for name in ("a.png", "b.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
