"""`keras_rda.lab.diagnostics.rda_discount_reach` runs on real digits and writes
its record."""

import json

import pytest

from keras_rda.lab.diagnostics import rda_discount_reach

pytestmark = pytest.mark.tensorflow_only


def test_a_larger_discount_bias_lets_more_of_the_digit_through(tmp_path, data_dir):
    path = tmp_path / "reach.json"
    rda_discount_reach.main(
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
    ((argv, env),) = [(c["argv"], c["env"]) for c in record["commands"]]
    assert record["kind"] == "table" and set(env) == {"KERAS_BACKEND"}
    assert argv[0] == "python"
    assert record["benchmark"] == "rda_discount_reach" and argv
