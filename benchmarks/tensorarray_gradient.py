"""Why the autodiff RDA layer was O(T^2) on TensorFlow: a minimal loop.

Differentiates a `tf.while_loop` that only reads each step's slice of a
`[T, 16, F]` `TensorArray` (as Keras's `rnn` loop reads its inputs) and
prints the CPU time per step for growing T. TensorFlow's gradient of
`TensorListGetItem` reserves a T-long list per step, so the time per step
grows with T; the fused RDA/RWA recurrence does not differentiate a loop.

    python benchmarks/tensorarray_gradient.py
    python benchmarks/tensorarray_gradient.py --lengths 1000 4000 --features 2 512
    python benchmarks/tensorarray_gradient.py --json PATH   # a table record

The record is a table record (`columns`, `rows`: microseconds of CPU time
per step, a row per F, a column per T) that `keras-rda report` renders.
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from keras_rda.lab.reporting.provenance import provenance  # noqa: E402
from keras_rda.lab.reporting.provenance import script_command  # noqa: E402
from keras_rda.lab.reporting.report import write_json  # noqa: E402


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--features", type=int, nargs="+", default=[2, 512])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", metavar="PATH", help="write a table record here")
    args = parser.parse_args(argv)
    print("| F | T | ms per gradient | us per step |")
    print("|---|---|---:|---:|")
    micros = {}
    for features in args.features:
        for length in args.lengths:
            x = tf.random.normal((length, 16, features))
            gradient = read_loop_gradient(length, features)
            gradient(x)
            start = time.process_time()
            for _ in range(args.repeats):
                gradient(x)
            seconds = (time.process_time() - start) / args.repeats
            micros[features, length] = seconds / length * 1e6
            print(
                f"| {features} | {length} | {seconds * 1e3:.0f} | "
                f"{micros[features, length]:.1f} |"
            )
    if args.json:
        write_json(
            args.json,
            {
                "benchmark": "tensorarray_gradient",
                "command": script_command(argv),
                **provenance(),
                "columns": ["F (features per step)"]
                + [f"T = {length}" for length in args.lengths],
                "rows": [
                    [str(features)]
                    + [f"{micros[features, t]:.0f} us/step" for t in args.lengths]
                    for features in args.features
                ],
                "notes": [
                    "CPU time per step of the gradient of a loop that only "
                    f"reads a `[T, 16, F]` `TensorArray`, mean of {args.repeats}."
                ],
            },
        )


if __name__ == "__main__":
    main()
