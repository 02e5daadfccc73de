"""`benchmarks/harness.py`: untimed warm-up, then one timed run of each call
per round, interleaved, each time the call's own."""

import ast

from tests.benchmarks.conftest import BENCHMARKS
from tests.benchmarks.conftest import benchmark_script


class FakeClock:
    """A clock that only moves when a call says how long it took."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_warmup_is_untimed_and_rounds_interleave_each_calls_own_time():
    clock = FakeClock()
    log = []

    def call(name, seconds):
        def run():
            log.append(name)
            clock.now += seconds

        return run

    calls = {"a": call("a", 2.0), "b": call("b", 5.0)}
    with benchmark_script("harness") as harness:
        times = harness.interleaved(calls, warmup=2, rounds=3, clock=clock)
    assert log == ["a", "a", "b", "b"] + ["a", "b"] * 3
    assert times == {"a": [2.0] * 3, "b": [5.0] * 3}


def test_synchronize_brackets_every_timed_run_and_ends_the_warmup():
    log = []
    calls = {"a": lambda: log.append("a"), "b": lambda: log.append("b")}
    with benchmark_script("harness") as harness:
        harness.interleaved(
            calls, warmup=1, rounds=2, synchronize=lambda: log.append("sync")
        )
    timed_round = ["sync", "a", "sync", "sync", "b", "sync"]
    assert log == ["a", "b", "sync"] + timed_round * 2


def test_a_time_is_measured_on_the_clock_given():
    ticks = iter([10.0, 10.5, 20.0, 21.0])
    with benchmark_script("harness") as harness:
        times = harness.interleaved(
            {"a": lambda: None}, warmup=0, rounds=2, clock=lambda: next(ticks)
        )
    assert times == {"a": [0.5, 1.0]}


def test_a_cell_is_the_median_range_and_ratio_to_the_reference():
    with benchmark_script("harness") as harness:
        cell = harness.cell([3.0, 9.0, 4.0], reference=[1.0, 2.0, 8.0], unit="ms")
    assert cell == "4 [3, 9] ms, 2.00x"


#: Scripts of `benchmarks/` that time nothing: the harness itself and the
#: fused kernels' figures beside their speed, `kernel_compile.py` (the
#: compiler's registers, spills, shared memory) and `kernel_precision.py`
#: (the error of their TF32 and bfloat16 matmuls against float32). They may
#: import no benchmark either. (Analyses live in `keras_rda.lab.diagnostics`,
#: the reporting of records in `keras_rda.lab.reporting`.)
NOT_BENCHMARKS = {"harness", "kernel_compile", "kernel_precision"}


def _imported_modules(path):
    """The top-level names of every module `path` imports, inside
    functions too."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_every_benchmark_uses_the_harness_and_imports_no_other_benchmark():
    scripts = {path.stem: path for path in sorted(BENCHMARKS.glob("*.py"))}
    benchmarks = {name: p for name, p in scripts.items() if name not in NOT_BENCHMARKS}
    assert "rnn_speed" in benchmarks
    without_harness = [
        n for n, p in benchmarks.items() if "harness" not in _imported_modules(p)
    ]
    assert without_harness == []
    others = set(scripts) - {"harness"}
    importing = {
        name: sorted(_imported_modules(path) & others)
        for name, path in scripts.items()
        if _imported_modules(path) & others
    }
    assert importing == {}


def test_a_run_writes_its_kind_and_structured_command(tmp_path):
    """`Run.write` keeps the script's `kind` (required: readers dispatch on
    it) and its one command, structured; `write_table` a `"timing"` table."""
    import json

    import pytest

    with benchmark_script("harness") as harness:
        run = harness.Run(["--repeats", "3"])
        with pytest.raises(ValueError, match="kind"):
            run.record({"rows": []})
        record = json.loads(
            run.write(tmp_path / "a.json", {"kind": "rnn_speed"}).read_text()
        )
        table = {"benchmark": "b", "columns": ["x"], "rows": [["1"]]}
        timing = json.loads(run.write_table(tmp_path / "b.json", table).read_text())
    assert record["kind"] == "rnn_speed" and timing["kind"] == "timing"
    for data in (record, timing):
        (command,) = data["commands"]
        assert command["argv"][0] == "python" and command["argv"][-2:] == [
            "--repeats",
            "3",
        ]
        assert set(command["env"]) == {"KERAS_BACKEND"}
