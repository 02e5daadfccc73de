"""Why the running average asks `d > 0` with `sign`: comparisons on TF's CPU.

On TensorFlow's CPU kernels (XLA off) a float comparison (`Greater`) costs
about ten times a multiplication. The RWA/RDA running average asks four
times a step whether anything has been attended yet (`d^ > 0`), so
`keras_rda.ops.attention_average` writes those questions with `sign`
(`attended`, `safe_denominator`), exactly equal for every `d^ >= 0`.

This script measures both halves of that, in one process:

1. the cost of one element-wise op on a `[batch, units]` tensor inside a
   `tf.while_loop` (a multiplication, `sign`, and `where(x > c, ...)`);
2. one training step of the `RDA` and `RWA` layers as they are (`sign`)
   and traced with the comparisons put back (`d > 0`, `where(d > 0, d,
   1)`), interleaved with `keras.layers.LSTM`, as ratios to the LSTM.

    python benchmarks/comparison_cost.py [--lengths 100 1000] [--repeats 7]
        [--warmup 2] [--json PATH]

The record is a table record (`columns`, `rows`, `notes`) that
`keras-rda report` renders.
"""

import argparse
import contextlib
import functools
import os
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops  # noqa: E402

from keras_rda.ops import attention_average  # noqa: E402

#: The (layer, form) columns of the table, the LSTM first (the reference).
KEYS = [
    ("LSTM", "sign"),
    ("RDA layer", "sign"),
    ("RDA layer", "d > 0"),
    ("RWA layer", "sign"),
    ("RWA layer", "d > 0"),
]

#: The forms the running average used before, for the A/B.
COMPARISONS = {
    "attended": lambda d: d > 0,
    "safe_denominator": lambda d: ops.where(d > 0, d, 1.0),
}


@contextlib.contextmanager
def with_comparisons():
    """Traces inside this block use `d > 0` instead of `sign`."""
    saved = {name: getattr(attention_average, name) for name in COMPARISONS}
    for name, form in COMPARISONS.items():
        setattr(attention_average, name, form)
    try:
        yield
    finally:
        for name, form in saved.items():
            setattr(attention_average, name, form)


def op_microseconds(batch, units, rounds, warmup=2, steps=1000):
    """CPU microseconds of one op per iteration of a `tf.while_loop` of
    `steps` iterations, the ops' loops interleaved (`harness.interleaved`).

    Returns:
        `{op: [microseconds per iteration, one per round]}`.
    """
    import tensorflow as tf

    bodies = {
        "multiply": lambda x: x * 0.9 + 0.05,
        "sign": lambda x: x * 0.9 + tf.sign(x - 0.5) * 0.05,
        "where(x > c)": lambda x: tf.where(x > 0.5, x * 0.9, x * 1.1),
    }
    x0 = tf.random.uniform((batch, units))

    def loop(body):
        @tf.function
        def run(x):
            return tf.while_loop(
                lambda i, x: i < steps, lambda i, x: (i + 1, body(x)), (0, x)
            )[1]

        return functools.partial(run, x0)

    calls = {name: loop(body) for name, body in bodies.items()}
    times = harness.interleaved(calls, warmup, rounds, clock=time.process_time)
    return {name: [s / steps * 1e6 for s in t] for name, t in times.items()}


def layer_times(length, units, batch, rounds, warmup=2):
    """CPU milliseconds per training step of each (layer, form), interleaved
    (`harness.interleaved`): `{(layer, form): [ms, one per round]}`."""
    rng = np.random.default_rng(0)
    x = rng.random((batch, length, 2), dtype=np.float32)
    y = rng.random((batch, 1), dtype=np.float32)
    calls = {}
    for name in ("LSTM", "RDA layer", "RWA layer"):
        variants = [("sign", contextlib.nullcontext)]
        if name != "LSTM":
            variants.append(("d > 0", with_comparisons))
        for form, context in variants:
            model = harness.build_model(name, units, length, 2, jit=False)
            with context():
                for _ in range(max(warmup, 1)):  # trace (with this form), warm up
                    model.train_on_batch(x, y)
            calls[name, form] = functools.partial(model.train_on_batch, x, y)
    times = harness.interleaved(calls, 0, rounds, clock=time.process_time)
    return {key: [s * 1e3 for s in t] for key, t in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=100)
    harness.add_arguments(
        parser, repeats=7, warmup=2, json_help="write a table record here"
    )
    args = parser.parse_args(argv)
    run = harness.Run(argv)
    if keras.backend.backend() != "tensorflow":
        raise SystemExit("comparison_cost.py measures TensorFlow's kernels")

    ops_us = op_microseconds(args.batch_size, args.units, args.repeats, args.warmup)
    notes = [
        f"One op on a `[{args.batch_size}, {args.units}]` tensor in a "
        "`tf.while_loop`, CPU microseconds per iteration, median [range] of "
        f"{args.repeats} interleaved rounds, ratio to the multiplication: "
        + "; ".join(
            f"{name} {harness.cell(us, ops_us['multiply'], 'us')}"
            for name, us in ops_us.items()
        )
        + "."
    ]
    rows = []
    layer_ms = {}
    for length in args.lengths:
        times = layer_times(
            length, args.units, args.batch_size, args.repeats, args.warmup
        )
        rows.append(
            [str(length)]
            + [harness.cell(times[key], times["LSTM", "sign"], "ms") for key in KEYS]
        )
        layer_ms[f"T={length}"] = {" ".join(key): t for key, t in times.items()}
    columns = ["T"] + [
        name if name == "LSTM" else f"{name} ({form})" for name, form in KEYS
    ]
    notes.append(
        f"One training step, {args.units} units, batch {args.batch_size}, input "
        f"dim 2, XLA off, CPU milliseconds, median [range] of {args.repeats} "
        "interleaved rounds, ratio to the LSTM."
    )
    print("| " + " | ".join(columns) + " |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print("\n".join(notes))
    if args.json:
        run.write(
            args.json,
            {
                "benchmark": "comparison_cost",
                "columns": columns,
                "rows": rows,
                "notes": notes,
                "op_microseconds": ops_us,
                "layer_milliseconds": layer_ms,
            },
        )


if __name__ == "__main__":
    main()
