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

`ParallelRDA` has no loop over time (its chunks and, with a known length,
the blocks of its chunk carries are unrolled), so one time step is its
program at the longer length divided by that length; the program's shape
depends on how T splits into chunks and blocks, so a difference of two
lengths does not isolate one step. Give lengths that are multiples of its
chunk size (8 by default; 64 before 2026-11-27), e.g. `--lengths 640 1280`.
(Records before 2026-11-27 took its step from the difference too; with
the loop of carries of that time the two agree to a few percent.)

The counts are the compiler's estimate for the CPU backend; they do not
time anything, so they do not depend on the machine's load.
"""

import argparse
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import keras  # noqa: E402

from keras_rda.lab.reporting.benchmark_tables import cost_record_markdown  # noqa: E402

#: `name -> (units -> layer)`: the layers of `rnn_speed.py` (`harness.LAYERS`).
MODELS = harness.LAYERS
DEFAULT_MODELS = [
    "LSTM",
    "GRU",
    "RDA layer",
    "RWA layer",
    "RDA layer (autodiff)",
    "RWA layer (autodiff)",
]
COUNTS = ("flops", "bytes accessed", "transcendentals")


#: The program counted (`harness.jax_gradient_step`, profiled by
#: `rnn_profile.py`).
gradient_step = harness.jax_gradient_step


def _compiled(name, units, length, batch_size, input_dim):
    step, inputs = gradient_step(name, units, length, batch_size, input_dim)
    compiled = step.lower(*inputs).compile()
    keras.backend.clear_session()
    return compiled


def program_cost(name, units, length, batch_size, input_dim):
    """XLA's counts for the gradient of the model's loss at `length`."""
    analysis = _compiled(name, units, length, batch_size, input_dim).cost_analysis()
    if isinstance(analysis, (list, tuple)):  # older jax: one dict per device
        analysis = analysis[0]
    return {key: float(analysis[key]) for key in COUNTS}


def program_memory(name, units, length, batch_size, input_dim):
    """MiB of working memory XLA assigns to the gradient program at `length`.

    The size of the temporary buffers in the compiled program's buffer
    assignment (`memory_analysis().temp_size_in_bytes`): everything the
    forward keeps for the backward (a loop's stacked per-step tensors),
    the gradients and the scratch space, weights and inputs excluded.
    Buffers whose lifetimes do not overlap share memory, so this is the
    program's peak working set as the compiler plans it, the same on every
    run.
    """
    compiled = _compiled(name, units, length, batch_size, input_dim)
    return compiled.memory_analysis().temp_size_in_bytes / 2**20


#: Models without a loop over time: a step is the whole program / T.
NO_TIME_LOOP = ("ParallelRDA",)


def per_step(name, units, batch_size, input_dim, lengths=(10, 20)):
    """Counts of one time step: the loop body plus the growing part / T
    (for a model without a loop over time, the longer program / T)."""
    short, long = lengths
    b = program_cost(name, units, long, batch_size, input_dim)
    if name in NO_TIME_LOOP:
        return {key: b[key] / long for key in COUNTS}
    a = program_cost(name, units, short, batch_size, input_dim)
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
        default=DEFAULT_MODELS,
        choices=MODELS,
    )
    parser.add_argument(
        "--memory-length",
        type=int,
        default=1000,
        help="also give each model's working memory at this T (0: skip)",
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
    run = harness.Run(argv)
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
        row = {"model": name, **step}
        if args.memory_length:
            row["temp_mib"] = program_memory(
                name, args.units, args.memory_length, args.batch_size, args.input_dim
            )
        rows.append(row)
    settings = {
        "units": args.units,
        "batch_size": args.batch_size,
        "input_dim": args.input_dim,
        "lengths": list(args.lengths),
        "memory_length": args.memory_length,
    }
    print(cost_record_markdown({"settings": settings, "rows": rows}))
    if args.json:
        run.write(
            args.json,
            {
                "kind": "rnn_cost",
                "benchmark": "rnn_cost",
                "settings": settings,
                "rows": rows,
            },
        )
    return rows


if __name__ == "__main__":
    main()
