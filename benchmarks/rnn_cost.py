"""What one time step of a recurrent layer costs, by XLA's own count.

The profile behind the speed table of `rnn_speed.py`: for one training
step's forward and backward pass (`Input -> layer -> Dense(1)`, MSE), XLA's
cost analysis of the compiled JAX program gives its floating-point
operations, the bytes its kernels read and write, and its transcendental
operations (`exp`, `log`, `tanh`, ...). A loop body is counted once, however
many times it runs, so each model is compiled at two lengths and split into
the loop body and the part that grows with T; one time step costs the body
plus one T-th of the growing part (what the fused layers do once after the
loop, like the weight gradient `H^T dG`, is spread over the steps).

    KERAS_BACKEND=jax python benchmarks/rnn_cost.py [--units 250]
        [--batch-size 100] [--input-dim 2] [--models ...] [--lengths 10 20]
        [--json PATH]

`ParallelRDA` has no loop over time (its chunks are unrolled): all of its
cost grows with T, so its two lengths must be multiples of its chunk size
(64), e.g. `--lengths 640 1280`.

The counts are the compiler's estimate for the CPU backend; they do not
time anything, so they do not depend on the machine's load.
"""

import argparse
import os
import shlex
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402

import keras_rda  # noqa: E402
from keras_rda.experiments.provenance import provenance  # noqa: E402
from keras_rda.experiments.report import write_json  # noqa: E402

MODELS = {
    "LSTM": keras.layers.LSTM,
    "GRU": keras.layers.GRU,
    "RDA layer": keras_rda.RDA,
    "RWA layer": keras_rda.RWA,
    "ParallelRDA": keras_rda.ParallelRDA,
}
COUNTS = ("flops", "bytes accessed", "transcendentals")


def gradient_step(name, units, length, batch_size, input_dim):
    """The jitted gradient of one training step's loss and its arguments.

    The program that `rnn_cost.py` counts and `rnn_profile.py` profiles:
    `grad(loss)(trainable, x, y)` of `Input((length, input_dim)) -> layer ->
    Dense(1)` with an MSE loss, on all-ones data.
    """
    import jax
    import jax.numpy as jnp

    model = keras.Sequential(
        [keras.Input((length, input_dim)), MODELS[name](units), keras.layers.Dense(1)]
    )
    trainable = [v.value for v in model.trainable_variables]
    non_trainable = [v.value for v in model.non_trainable_variables]

    def loss(trainable, x, y):
        out, _ = model.stateless_call(trainable, non_trainable, x, training=True)
        return jnp.mean((out - y) ** 2)

    x = jnp.ones((batch_size, length, input_dim))
    y = jnp.ones((batch_size, 1))
    return jax.jit(jax.grad(loss)), (trainable, x, y)


def program_cost(name, units, length, batch_size, input_dim):
    """XLA's counts for the gradient of the model's loss at `length`."""
    step, inputs = gradient_step(name, units, length, batch_size, input_dim)
    analysis = step.lower(*inputs).compile().cost_analysis()
    if isinstance(analysis, (list, tuple)):  # older jax: one dict per device
        analysis = analysis[0]
    keras.backend.clear_session()
    return {key: float(analysis[key]) for key in COUNTS}


def per_step(name, units, batch_size, input_dim, lengths=(10, 20)):
    """Counts of one time step: the loop body plus the growing part / T."""
    short, long = lengths
    a = program_cost(name, units, short, batch_size, input_dim)
    b = program_cost(name, units, long, batch_size, input_dim)
    step = {}
    for key in COUNTS:
        growing = (b[key] - a[key]) / (long - short)
        body = a[key] - short * growing
        step[key] = body + growing
    return step


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--input-dim", type=int, default=2)
    parser.add_argument(
        "--models",
        nargs="+",
        default=[m for m in MODELS if m != "ParallelRDA"],
        choices=MODELS,
    )
    parser.add_argument(
        "--lengths",
        nargs=2,
        type=int,
        default=(10, 20),
        metavar=("SHORT", "LONG"),
        help="the two lengths compiled to split loop body and growing part",
    )
    parser.add_argument("--json", metavar="PATH", help="write the record here")
    args = parser.parse_args(argv)
    if keras.backend.backend() != "jax":
        raise SystemExit(
            "rnn_cost.py reads XLA's cost analysis through JAX: "
            "run it with KERAS_BACKEND=jax"
        )

    rows = []
    for name in args.models:
        step = per_step(
            name, args.units, args.batch_size, args.input_dim, tuple(args.lengths)
        )
        rows.append({"model": name, **step})
    reference = next((r for r in rows if r["model"] == "LSTM"), None)
    print(
        f"\nOne time step of a training step's forward + backward pass, "
        f"{args.units} units, batch {args.batch_size}, input dim "
        f"{args.input_dim} (XLA's counts; ratio to LSTM in brackets)\n"
    )
    print("| model | MFLOP | MB accessed | k transcendentals |")
    print("|---|---:|---:|---:|")
    for row in rows:
        cells = []
        for key, scale in zip(COUNTS, (1e6, 1e6, 1e3)):
            ratio = f" ({row[key] / reference[key]:.2f})" if reference else ""
            cells.append(f"{row[key] / scale:.1f}{ratio}")
        print(f"| {row['model']} | " + " | ".join(cells) + " |")
    if args.json:
        record = {
            "benchmark": "rnn_cost",
            "command": "KERAS_BACKEND=jax python benchmarks/rnn_cost.py "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            **provenance(),
            "settings": {
                "units": args.units,
                "batch_size": args.batch_size,
                "input_dim": args.input_dim,
                "lengths": list(args.lengths),
            },
            "rows": rows,
        }
        write_json(args.json, record)
    return rows


if __name__ == "__main__":
    main()
