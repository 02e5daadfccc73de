"""`benchmarks/streaming_speed.py` runs and writes its table record."""

import json

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
                "--units", "4", "--features", "3", "--steps", "3", "--warmup",
                "1", "--models", "LSTM", "RDA", "--json", str(path),
            ]
        )  # fmt: skip
    record = json.loads(path.read_text())
    rows = {row[0]: row for row in record["rows"]}
    assert set(rows) == {"LSTM", "RDA"}
    assert all(cell for cell in rows["RDA"][1:]), rows["RDA"]
    assert rows["LSTM"][1].endswith("1.00x")
