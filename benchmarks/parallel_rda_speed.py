"""Training-step speed of `ParallelRDA` against LSTM and the sequential RDA cell.

One training step = forward, backward and an Adam update of
`Input((T, input_dim)) -> recurrent layer -> Dense(1)` on an MSE loss
(`train_on_batch`). All models of one (backend, T, XLA) setting are built in
one process and timed interleaved (A, B, C, then again), so that machine load
affects them alike; the table gives the median step time of each and its
speed-up over `keras.layers.LSTM` and over `keras.layers.RNN(RDACell)`
measured in the same run (`speed-up = reference time / model time`, higher
is faster). Each backend runs in its own process.

    python benchmarks/parallel_rda_speed.py                       # TF and JAX
    python benchmarks/parallel_rda_speed.py --lengths 10000 --clock cpu --json
    python benchmarks/parallel_rda_speed.py --chunk-sizes 32 64 128   # tuning
    python benchmarks/parallel_rda_speed.py --quick               # smoke run
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

import harness

REFERENCES = ("LSTM", "RNN(RDACell)")

#: Chunk sizes timed unless `--chunk-sizes` says otherwise: the layer's
#: default (this process does not import the package; a test checks them).
CHUNK_SIZES = (8,)


def model_builders(chunk_sizes, associative):
    import keras

    import keras_rda

    builders = {
        "LSTM": lambda units: keras.layers.LSTM(units),
        "RNN(RDACell)": lambda units: keras.layers.RNN(keras_rda.RDACell(units)),
    }
    for chunk in chunk_sizes:
        builders[f"ParallelRDA(chunk={chunk})"] = lambda units, chunk=chunk: (
            keras_rda.ParallelRDA(units, chunk_size=chunk)
        )
    if associative:
        builders["ParallelRDA(associative)"] = lambda units: keras_rda.ParallelRDA(
            units, scan_method="associative"
        )
    return builders


def time_steps(models, x, y, warmup, repeats, clock, failures, first_steps):
    """Median seconds per `train_on_batch`, models interleaved
    (`harness.time_steps`). Each model's first step (tracing and, under
    XLA, compilation) goes to `first_steps` in wall seconds; a model whose
    first step fails is left out, its error kept in `failures`."""
    for name, model in list(models.items()):
        try:
            start = time.perf_counter()
            model.train_on_batch(x, y)
            first_steps[name] = time.perf_counter() - start
            for _ in range(warmup - 1):
                model.train_on_batch(x, y)
        except Exception as error:  # noqa: BLE001 (reported in the record)
            failures[name] = f"{type(error).__name__}: {str(error)[:200]}"
            del models[name]
    return harness.time_steps(models, x, y, 0, repeats, clock)


def run_backend(args):
    """All settings on the backend this process imported; returns rows."""
    import keras
    import numpy as np

    builders = model_builders(args.chunk_sizes, args.associative)
    names = [n for n in builders if n not in args.skip]
    clock = harness.CLOCKS[args.clock]
    rng = np.random.default_rng(0)
    rows = []
    for length in args.lengths:
        x = rng.random((args.batch_size, length, args.input_dim), dtype=np.float32)
        y = rng.random((args.batch_size, 1), dtype=np.float32)
        for jit in {"both": [False, True], "on": [True], "off": [False]}[args.jit]:
            models = {}
            for name in names:
                model = keras.Sequential(
                    [
                        keras.Input((length, args.input_dim)),
                        builders[name](args.units),
                        keras.layers.Dense(1),
                    ]
                )
                model.compile(keras.optimizers.Adam(1e-3), "mse", jit_compile=jit)
                models[name] = model
            repeats = args.repeats if length < 10000 else args.long_repeats
            failures, first_steps = {}, {}
            medians = time_steps(
                models, x, y, args.warmup, repeats, clock, failures, first_steps
            )
            for name, error in failures.items():
                rows.append(
                    {
                        "backend": keras.backend.backend(),
                        "length": length,
                        "xla": jit,
                        "model": name,
                        "error": error,
                    }
                )
            for name, seconds in medians.items():
                row = {
                    "backend": keras.backend.backend(),
                    "length": length,
                    "xla": jit,
                    "model": name,
                    "ms_per_step": seconds * 1e3,
                    "repeats": repeats,
                    "first_step_s": first_steps[name],
                }
                for reference in REFERENCES:
                    if reference in medians:
                        row[f"speedup_vs_{reference}"] = medians[reference] / seconds
                rows.append(row)
            keras.backend.clear_session()
    return rows


def print_table(rows, args):
    print(
        f"\nOne training step (forward + backward + Adam), {args.units} units, "
        f"batch {args.batch_size}, input dim {args.input_dim}; median {args.clock} "
        "time of interleaved steps; speed-up = reference time / model time "
        "(higher is faster)\n"
    )
    print(
        "| backend | T | XLA | model | ms / step | vs LSTM | vs RNN(RDACell) "
        "| first step, s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(
                f"| {r['backend']} | {r['length']} | {'on' if r['xla'] else 'off'} | "
                f"{r['model']} | fails: {r['error'][:60]} | | | |"
            )
            continue
        # A reference left out (`--skip`) leaves its column empty.
        lstm, rda = (
            f"{r[key]:.2f}x" if key in r else ""
            for key in ("speedup_vs_LSTM", "speedup_vs_RNN(RDACell)")
        )
        print(
            f"| {r['backend']} | {r['length']} | {'on' if r['xla'] else 'off'} | "
            f"{r['model']} | {r['ms_per_step']:.1f} | {lstm} | {rda} | "
            f"{r['first_step_s']:.1f} |"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", nargs="+", default=["tensorflow", "jax"])
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--input-dim", type=int, default=2)
    parser.add_argument("--lengths", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--chunk-sizes", type=int, nargs="+", default=list(CHUNK_SIZES))
    parser.add_argument(
        "--associative",
        action="store_true",
        help="also time scan_method='associative'",
    )
    parser.add_argument(
        "--skip", nargs="*", default=[], help="model names to leave out"
    )
    harness.add_arguments(parser, repeats=7, warmup=1, clock="wall")
    parser.add_argument(
        "--long-repeats", type=int, default=3, help="repeats at T >= 10,000"
    )
    parser.add_argument("--jit", choices=["both", "on", "off"], default="both")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.warmup < 1:
        parser.error(
            f"--warmup must be at least 1 (the first step, which traces and "
            f"compiles, is recorded as `first_step_s`), got {args.warmup}"
        )
    if args.quick:
        args.units, args.batch_size, args.lengths = 8, 4, [20]
        args.repeats, args.long_repeats, args.warmup = 2, 2, 1

    if args.worker:  # one backend, in this process; rows as JSON on stdout
        from keras_rda.lab.reporting.provenance import provenance

        rows = run_backend(args)
        print("ENV " + json.dumps(provenance()))
        print("ROWS " + json.dumps(rows))
        return rows

    rows, environments = [], {}
    raw = sys.argv[1:] if argv is None else list(argv)
    run = harness.Run(raw)
    for backend in args.backends:
        env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="2")
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), *raw, "--worker"],
            env=env,
            capture_output=True,
            text=True,
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith("ROWS ")]
        if done.returncode or not lines:
            sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
            raise SystemExit(f"the {backend} run failed")
        rows.extend(json.loads(lines[-1][5:]))
        env_lines = [x for x in done.stdout.splitlines() if x.startswith("ENV ")]
        environments[backend] = json.loads(env_lines[-1][4:])
    print_table(rows, args)
    if args.json:
        record = run.record(
            {
                "kind": "parallel_rda_speed",
                "benchmark": "parallel_rda_speed",
                "environments": environments,
                "settings": {
                    k: v for k, v in vars(args).items() if k not in ("json", "worker")
                },
                "rows": rows,
            },
            command="python benchmarks/parallel_rda_speed.py " + shlex.join(raw),
            provenance=False,  # each backend's worker gives its own
        )
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
        print(f"\nrecord: {args.json}")
    return rows


if __name__ == "__main__":
    main()
