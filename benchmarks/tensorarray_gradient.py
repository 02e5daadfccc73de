"""Why the autodiff RDA layer was O(T^2) on TensorFlow: a minimal loop.

Differentiates a `tf.while_loop` that only reads each step's slice of a
`[T, 16, F]` `TensorArray` (as Keras's `rnn` loop reads its inputs) and
prints the CPU time per step for growing T. TensorFlow's gradient of
`TensorListGetItem` reserves a T-long list per step, so the time per step
grows with T; the fused RDA/RWA recurrence does not differentiate a loop.

    python benchmarks/tensorarray_gradient.py
    python benchmarks/tensorarray_gradient.py --lengths 1000 4000 --features 2 512
    python benchmarks/tensorarray_gradient.py --json PATH   # a table record

Every (F, T) is timed once per round, the rounds interleaved, after one
warm-up call each. The record is a table record (`columns`, `rows`: a row
per F, a column per T, the median CPU time per step over the rounds with
its range, and its ratio to the shortest T's) that `keras-rda report`
renders.
"""

import argparse
import functools
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import tensorflow as tf  # noqa: E402


def read_loop_gradient(length, features):
    """A compiled function: gradient of a loop reading every step."""

    @tf.function
    def gradient(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            array = tf.TensorArray(tf.float32, size=length).unstack(x)

            def body(i, total):
                return i + 1, total + tf.reduce_sum(array.read(i)[:, :2])

            _, total = tf.while_loop(lambda i, _: i < length, body, (0, 0.0))
        return tape.gradient(total, x)

    return gradient


def interleaved_micros_per_step(gradients, inputs, rounds, warmup=1):
    """CPU microseconds per loop step of each gradient, over `rounds` rounds.

    Args:
        gradients: `{(features, length): compiled gradient}`.
        inputs: `{(features, length): [length, 16, features] tensor}`.
        rounds: how many times each gradient is timed, interleaved.

    Returns:
        `{(features, length): [microseconds per step, one per round]}`.
    """
    calls = {
        key: functools.partial(gradient, inputs[key])
        for key, gradient in gradients.items()
    }
    # One untimed call traces and warms up each (`harness.interleaved`).
    times = harness.interleaved(calls, warmup, rounds, clock=time.process_time)
    return {
        (features, length): [s / length * 1e6 for s in seconds]
        for (features, length), seconds in times.items()
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--features", type=int, nargs="+", default=[2, 512])
    harness.add_arguments(
        parser, repeats=7, warmup=1, json_help="write a table record here"
    )
    args = parser.parse_args(argv)
    run = harness.Run(argv)
    keys = [(f, t) for f in args.features for t in args.lengths]
    inputs = {(f, t): tf.random.normal((t, 16, f)) for f, t in keys}
    gradients = {(f, t): read_loop_gradient(t, f) for f, t in keys}
    times = interleaved_micros_per_step(gradients, inputs, args.repeats, args.warmup)
    shortest = min(args.lengths)
    rows = [
        [str(f)]
        + [
            harness.cell(times[f, t], times[f, shortest], "us/step")
            for t in args.lengths
        ]
        for f in args.features
    ]
    columns = ["F (features per step)"] + [f"T = {t}" for t in args.lengths]
    print("| " + " | ".join(columns) + " |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if args.json:
        run.write(
            args.json,
            {
                "kind": "timing",
                "benchmark": "tensorarray_gradient",
                "columns": columns,
                "rows": rows,
                "rounds": args.repeats,
                "micros_per_step": {f"F={f},T={t}": times[f, t] for f, t in keys},
                "notes": [
                    "CPU time per step of the gradient of a loop that only "
                    "reads a `[T, 16, F]` `TensorArray`: median [range] of "
                    f"{args.repeats} interleaved rounds after a warm-up call, "
                    f"and its ratio to T = {shortest}'s median."
                ],
            },
        )


if __name__ == "__main__":
    main()
