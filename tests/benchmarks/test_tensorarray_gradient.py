"""`benchmarks/tensorarray_gradient.py`: interleaved rounds, median, range and
the ratio to the shortest loop, as its record says."""

import json
import statistics

import pytest

from tests.benchmarks.conftest import benchmark_script

pytestmark = pytest.mark.tensorflow_only


def test_the_record_is_the_median_range_and_ratio_of_every_round(tmp_path):
    path = tmp_path / "tensorarray.json"
    with benchmark_script("tensorarray_gradient") as script:
        script.main(
            ["--lengths", "20", "40", "--features", "2", "--repeats", "7",
             "--json", str(path)]
        )  # fmt: skip
    record = json.loads(path.read_text())
    assert record["columns"] == ["F (features per step)", "T = 20", "T = 40"]
    times = record["micros_per_step"]
    assert sorted(times) == ["F=2,T=20", "F=2,T=40"]
    assert all(len(t) == 7 for t in times.values())
    short, long = times["F=2,T=20"], times["F=2,T=40"]
    ratio = statistics.median(long) / statistics.median(short)
    assert record["rows"] == [
        [
            "2",
            f"{statistics.median(short):.0f} [{min(short):.0f}, {max(short):.0f}] "
            "us/step, 1.00x",
            f"{statistics.median(long):.0f} [{min(long):.0f}, {max(long):.0f}] "
            f"us/step, {ratio:.2f}x",
        ]
    ]
    assert "7 interleaved rounds" in record["notes"][0]
    assert record["benchmark"] == "tensorarray_gradient" and record["kind"] == "timing"
    (command,) = record["commands"]
    assert command["argv"][0] == "python"


def test_a_gradient_through_the_loop_is_one_for_every_read_element():
    import tensorflow as tf

    with benchmark_script("tensorarray_gradient") as script:
        gradient = script.read_loop_gradient(5, 3)
    x = tf.random.normal((5, 16, 3))
    expected = [[[1.0, 1.0, 0.0]] * 16] * 5  # the loop sums x[t, :, :2]
    assert gradient(x).numpy().tolist() == expected
