"""`keras_rda.lab.reporting.speed_summary`: the README's speed table is what its
source records give, and every source is a record in `results/`."""

import json

from keras_rda.lab.reporting import speed_summary
from keras_rda.lab.reporting.commands import command_text
from tests.conftest import REPO_ROOT


def test_summary_record_agrees_with_its_sources():
    table = speed_summary.summary_table(REPO_ROOT / "results")
    record = json.loads(
        (REPO_ROOT / "results" / "benchmarks" / "speed_summary.json").read_text()
    )
    for key in ("columns", "rows", "notes", "sources"):
        assert record[key] == table[key], f"rerun {command_text(speed_summary.COMMAND)}"
    for source in record["sources"]:
        assert (REPO_ROOT / source).is_file()


def test_the_record_is_a_timing_table_with_its_command(tmp_path, capsys):
    path = tmp_path / "speed_summary.json"
    speed_summary.main(["--json", str(path)])
    record = json.loads(path.read_text())
    assert record["kind"] == "timing" and record["commands"] == [speed_summary.COMMAND]
    assert command_text(speed_summary.COMMAND) == (
        "python -m keras_rda.lab.reporting.speed_summary "
        "--json results/benchmarks/speed_summary.json"
    )


def test_the_table_names_each_source_records_rounds():
    """The rounds behind each median, from the source record (`settings`'
    `repeats`, or a top-level `rounds`), are named beside it."""
    table = speed_summary.summary_table(REPO_ROOT / "results")
    assert speed_summary.rounds({"kind": "rnn_speed", "settings": {"repeats": 5}}) == 5
    assert speed_summary.rounds({"kind": "memory_speed", "rounds": 20}) == 20
    notes = " ".join(table["notes"])
    for source in table["sources"]:
        record = json.loads((REPO_ROOT / source).read_text())
        count = speed_summary.rounds(record)
        assert f"`{source}` ({count} rounds)" in notes


def test_a_cell_is_the_units_time_over_the_references(tmp_path):
    """Every page gives speed one way: the unit's time over the reference's
    (lower is faster), so a unit twice as fast as the LSTM reads 0.50x."""
    record = {
        "kind": "rnn_speed",
        "machine": {"usable_cores": 2, "accelerators": []},
        "backend": "jax",
        "rows": [
            {"length": 100, "xla": True, "model": "LSTM", "ms_per_step": 80.0},
            {"length": 100, "xla": True, "model": "RDA layer", "ms_per_step": 40.0},
        ],
    }
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "fake.json").write_text(json.dumps(record))
    cell = speed_summary.time_ratio_cell(
        tmp_path, ("fake", 100, True, "RDA layer"), "LSTM"
    )
    assert cell == ("0.50x", "2-core CPU, JAX, XLA on", "fake")
