"""Training-step speed of the RDA/RWA layers against Keras's LSTM and GRU.

One training step = forward, backward and an Adam update of
`Input((T, input_dim)) -> recurrent layer -> Dense(1)` on an MSE loss. All
models are built in one process and timed interleaved (model A, B, C, ...,
then again), so that machine load affects them alike; the table reports the
median step time of each as a ratio to `keras.layers.LSTM` of the same size
measured in the same run.

    python benchmarks/rnn_speed.py          # 250 units, batch 100, T 100 and 1000
    python benchmarks/rnn_speed.py --quick  # a smoke run
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import keras_rda  # noqa: E402

MODELS = {
    "LSTM": lambda units: keras.layers.LSTM(units),
    "GRU": lambda units: keras.layers.GRU(units),
    "RDA layer": lambda units: keras_rda.RDA(units),
    "RWA layer": lambda units: keras_rda.RWA(units),
    "RNN(RDACell)": lambda units: keras.layers.RNN(keras_rda.RDACell(units)),
}


def build(name, units, length, input_dim, jit):
    model = keras.Sequential(
        [keras.Input((length, input_dim)), MODELS[name](units), keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(1e-3), "mse", jit_compile=jit)
    return model


def time_steps(models, x, y, warmup, repeats, clock=time.perf_counter):
    """Median seconds per `train_on_batch`, models interleaved."""
    for model in models.values():
        for _ in range(warmup):
            model.train_on_batch(x, y)
    times = {name: [] for name in models}
    for _ in range(repeats):
        for name, model in models.items():
            start = clock()
            model.train_on_batch(x, y)
            times[name].append(clock() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--input-dim", type=int, default=2)
    parser.add_argument("--lengths", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--jit", choices=["both", "on", "off"], default="both")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall: elapsed time; cpu: this process's CPU time (steadier on a "
        "loaded machine)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, for a smoke run"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.units, args.batch_size, args.lengths, args.repeats, args.warmup = (
            16,
            8,
            [20],
            2,
            1,
        )

    jits = {"both": [False, True], "on": [True], "off": [False]}[args.jit]
    rng = np.random.default_rng(0)
    rows = []
    for length in args.lengths:
        x = rng.random((args.batch_size, length, args.input_dim), dtype=np.float32)
        y = rng.random((args.batch_size, 1), dtype=np.float32)
        for jit in jits:
            models = {
                name: build(name, args.units, length, args.input_dim, jit)
                for name in args.models
            }
            clock = time.perf_counter if args.clock == "wall" else time.process_time
            medians = time_steps(models, x, y, args.warmup, args.repeats, clock)
            reference = medians.get("LSTM")
            for name, seconds in medians.items():
                ratio = seconds / reference if reference else float("nan")
                rows.append(
                    (length, "on" if jit else "off", name, seconds * 1e3, ratio)
                )
            keras.backend.clear_session()

    print(
        f"\nOne training step (forward + backward + Adam), {args.units} units, "
        f"batch {args.batch_size}, input dim {args.input_dim}, median {args.clock} "
        f"time of {args.repeats} interleaved steps; ratio = time / LSTM time "
        "(lower is faster)\n"
    )
    print("| T | XLA | model | ms / step | ratio to LSTM |")
    print("|---|---|---|---|---|")
    for length, jit, name, ms, ratio in rows:
        print(f"| {length} | {jit} | {name} | {ms:.1f} | {ratio:.2f} |")
    return rows


if __name__ == "__main__":
    main()
