"""`benchmarks/rda_discount_reach.py` runs on real digits and writes its record."""

import json

import pytest

from tests.benchmarks.conftest import benchmark_script

pytestmark = pytest.mark.tensorflow_only


def test_a_larger_discount_bias_lets_more_of_the_digit_through(tmp_path, data_dir):
    path = tmp_path / "reach.json"
    with benchmark_script("rda_discount_reach") as script:
        script.main(
            ["--units", "8", "--digits", "4", "--discount-biases", "1", "4",
             "--json", str(path)]
        )  # fmt: skip
    record = json.loads(path.read_text())
    paper, started_high, rwa = record["rows"]
    assert [paper[0], started_high[0], rwa[0]] == [
        "RDA (paper, section 6.1)",
        "RDA",
        "RWA",
    ]
    assert paper[2] == "0.731" and started_high[2] == "0.982"
    # Over 100+ blank steps the paper's start scales the digit's rows by
    # about 0.73^100 < 1e-13 more than a start at sigmoid(4) = 0.98 does.
    assert float(started_high[3]) > 1e6 * float(paper[3])
    assert record["benchmark"] == "rda_discount_reach" and record["command"]
