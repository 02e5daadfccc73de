"""The one interleaved timing loop of the benchmarks.

Every benchmark that compares things by time runs them in one process and
times them interleaved: each call first runs `warmup` times untimed (tracing,
compilation, caches), then every round times one run of each call in turn
(A, B, C, then again), so that the machine's load falls on all of them alike.
A record gives the median of the rounds and their range.
"""

import statistics
import time


def interleaved(calls, warmup, rounds, clock=time.perf_counter, synchronize=None):
    """Seconds of each call in every round, the calls interleaved.

    Args:
        calls: `{name: fn}`, each `fn()` one run of the thing timed.
        warmup: untimed runs of each call before the first round.
        rounds: timed runs of each call, one per round.
        clock: `time.perf_counter` (wall) or `time.process_time` (CPU).
        synchronize: called before and after each timed run, and after the
            warm-up (an accelerator's queue drained, e.g.
            `torch.cuda.synchronize`), so that a run's time is its own.

    Returns:
        `{name: [seconds, one per round]}`, in the order of `calls`.
    """
    sync = synchronize or (lambda: None)
    for fn in calls.values():
        for _ in range(warmup):
            fn()
    sync()
    times = {name: [] for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            sync()
            start = clock()
            fn()
            sync()
            times[name].append(clock() - start)
    return times


def cell(times, reference, unit):
    """A table cell: `median [min, max] unit, ratio to the reference's
    median`, of `times` (one per round, already in `unit`)."""
    median = statistics.median(times)
    return (
        f"{median:.0f} [{min(times):.0f}, {max(times):.0f}] {unit}, "
        f"{median / statistics.median(reference):.2f}x"
    )
