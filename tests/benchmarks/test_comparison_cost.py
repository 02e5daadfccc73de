"""`benchmarks/comparison_cost.py`: every op and layer form timed in
interleaved rounds, the record's cells the median, range and ratio of them."""

import json
import statistics

import pytest

from tests.benchmarks.conftest import benchmark_script

pytestmark = pytest.mark.tensorflow_only


def _expected_cell(times, reference, unit):
    median = statistics.median(times)
    ratio = median / statistics.median(reference)
    return f"{median:.0f} [{min(times):.0f}, {max(times):.0f}] {unit}, {ratio:.2f}x"


def test_the_record_is_the_median_range_and_ratio_of_every_round(tmp_path):
    path = tmp_path / "comparison_cost.json"
    with benchmark_script("comparison_cost") as script:
        script.main(
            ["--lengths", "5", "--units", "4", "--batch-size", "2",
             "--repeats", "7", "--json", str(path)]
        )  # fmt: skip
    record = json.loads(path.read_text())
    assert record["columns"] == [
        "T", "LSTM", "RDA layer (sign)", "RDA layer (d > 0)",
        "RWA layer (sign)", "RWA layer (d > 0)",
    ]  # fmt: skip
    layers = record["layer_milliseconds"]["T=5"]
    assert all(len(t) == 7 for t in layers.values())
    lstm = layers["LSTM sign"]
    forms = ["LSTM sign", "RDA layer sign", "RDA layer d > 0", "RWA layer sign",
             "RWA layer d > 0"]  # fmt: skip
    assert record["rows"] == [
        ["5"] + [_expected_cell(layers[form], lstm, "ms") for form in forms]
    ]
    ops = record["op_microseconds"]
    assert sorted(ops) == ["multiply", "sign", "where(x > c)"]
    assert all(len(t) == 7 for t in ops.values())
    assert _expected_cell(ops["sign"], ops["multiply"], "us") in record["notes"][0]
    assert record["benchmark"] == "comparison_cost" and record["command"]


def test_the_comparisons_are_put_back_only_inside_the_block():
    with benchmark_script("comparison_cost") as script:
        average = script.attention_average
        signed = average.attended, average.safe_denominator
        with script.with_comparisons():
            assert average.attended is script.COMPARISONS["attended"]
            assert average.safe_denominator is script.COMPARISONS["safe_denominator"]
        assert (average.attended, average.safe_denominator) == signed
