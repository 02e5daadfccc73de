"""`benchmarks/timing.py`: untimed warm-up, then one timed run of each call
per round, interleaved, each time the call's own."""

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
    with benchmark_script("timing") as timing:
        times = timing.interleaved(calls, warmup=2, rounds=3, clock=clock)
    assert log == ["a", "a", "b", "b"] + ["a", "b"] * 3
    assert times == {"a": [2.0] * 3, "b": [5.0] * 3}


def test_synchronize_brackets_every_timed_run_and_ends_the_warmup():
    log = []
    calls = {"a": lambda: log.append("a"), "b": lambda: log.append("b")}
    with benchmark_script("timing") as timing:
        timing.interleaved(
            calls, warmup=1, rounds=2, synchronize=lambda: log.append("sync")
        )
    timed_round = ["sync", "a", "sync", "sync", "b", "sync"]
    assert log == ["a", "b", "sync"] + timed_round * 2


def test_a_time_is_measured_on_the_clock_given():
    ticks = iter([10.0, 10.5, 20.0, 21.0])
    with benchmark_script("timing") as timing:
        times = timing.interleaved(
            {"a": lambda: None}, warmup=0, rounds=2, clock=lambda: next(ticks)
        )
    assert times == {"a": [0.5, 1.0]}


def test_a_cell_is_the_median_range_and_ratio_to_the_reference():
    with benchmark_script("timing") as timing:
        cell = timing.cell([3.0, 9.0, 4.0], reference=[1.0, 2.0, 8.0], unit="ms")
    assert cell == "4 [3, 9] ms, 2.00x"
