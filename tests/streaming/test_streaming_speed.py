"""`benchmarks/streaming_speed.py` runs and writes its table record."""

import json
import re

import pytest

from tests.benchmarks.conftest import benchmark_script

pytestmark = pytest.mark.tensorflow_only


def test_a_tiny_run_writes_a_record_with_every_runtime(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("ai_edge_litert")
    path = tmp_path / "streaming.json"
    with benchmark_script("streaming_speed") as script:
        script.main(
            [
                "--units", "4", "--features", "3", "--repeats", "3", "--warmup",
                "1", "--batches", "1", "2", "--profile-steps", "2", "--models",
                "LSTM", "RDA", "--json", str(path),
            ]
        )  # fmt: skip
    record = json.loads(path.read_text())
    rows = {(row[0], row[1]): row for row in record["rows"]}
    assert set(rows) == {(m, b) for m in ("LSTM", "RDA") for b in ("1", "2")}
    assert all(cell for cell in rows[("RDA", "2")][2:]), rows[("RDA", "2")]
    assert rows[("LSTM", "1")][2].endswith("1.00x")
    # The inference form has fewer ONNX nodes than the training form.
    inference, training = re.match(r"(\d+) \((\d+)\)", rows[("RDA", "1")][5]).groups()
    assert int(inference) < int(training)
    nodes = {entry["model"]: entry for entry in record["onnx_nodes"]}
    assert nodes["RDA"]["inference"] == int(inference)
    assert nodes["RDA"]["lstm"] == nodes["LSTM"]["inference"]
    # Each of the RDA's targets at the run's batch sizes, with its ratios.
    targets = {(t["model"], t["batch"]): t for t in record["targets"]}
    assert set(targets) == {("RDA", 1), ("RDA", 2)}
    assert targets[("RDA", 1)]["at_most"] == 1.0
    assert set(targets[("RDA", 2)]["ratios"]) == {"onnxruntime", "LiteRT"}
    profiled = {(p["model"], p["batch"]) for p in record["profiles"]}
    assert profiled == set(map(lambda k: (k[0], int(k[1])), rows))
    assert "load average" in " ".join(record["notes"])
