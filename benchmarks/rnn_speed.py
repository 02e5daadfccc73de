"""Training-step speed of the RDA/RWA layers against Keras's LSTM and GRU.

One training step = forward, backward and an Adam update of
`Input((T, input_dim)) -> recurrent layer -> Dense(1)` on an MSE loss: of
the last step's output, or with `--return-sequences` of every step's (the
per-step tasks: copy, multicopy, character models). All
models are built in one process and timed interleaved (model A, B, C, ...,
then again), so that machine load affects them alike; the table reports the
median step time of each as a ratio to `keras.layers.LSTM` of the same size
measured in the same run (`--reference` names another, e.g.
`torch.nn.LSTM` on PyTorch). Runs on whatever backend `KERAS_BACKEND`
selects.

With `--floors`, the matmul floors of the units (`matmul_floor`: the
recurrent matmuls of a training step alone, in the layers' own loop) are
timed in the same rounds, and each layer's time is also given as a ratio
to its unit's floor.

With `--memory`, each model's peak memory for one training step at the
`--memory-length` (1000) is measured in a fresh subprocess per model: the process's
peak resident set size (`ru_maxrss`) during the first step (which includes
tracing and compiling it) minus its resident size just before the step.

    python benchmarks/rnn_speed.py          # 250 units, batch 100, T 100 and 1000
    python benchmarks/rnn_speed.py --quick  # a smoke run
    KERAS_BACKEND=jax python benchmarks/rnn_speed.py --clock cpu --json out.json
    python benchmarks/rnn_speed.py --memory --jit off
    python benchmarks/rnn_speed.py --return-sequences   # a loss on every step
    KERAS_BACKEND=torch python benchmarks/rnn_speed.py --jit off \
        --models torch.nn.LSTM 'RDA layer' --reference torch.nn.LSTM \
        --floors 'matmul floor (RDA)'
"""

import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from keras_rda.utils import keras_compat  # noqa: E402

#: The layers this script can time (`harness.LAYERS`, shared with
#: `rnn_cost.py` and `rnn_profile.py`).
MODELS = harness.LAYERS
DEFAULT_MODELS = ["LSTM", "GRU", "RDA layer", "RWA layer", "RNN(RDACell)"]


#: The matmul floors: the recurrent matmuls of a unit's training step
#: alone, `name -> gate blocks that read h_{t-1}` (RDA: g, a, gamma; RWA:
#: g, a; LSTM: i, f, c, o).
FLOORS = {"matmul floor (RDA)": 3, "matmul floor (RWA)": 2, "matmul floor (LSTM)": 4}


def matmul_floor(blocks, units, batch_size, length, jit):
    """One call of the matmuls a training step of the unit cannot avoid.

    In the loop the layers use (`keras_rda.ops.scan`: `lax.scan`, a
    `tf.while_loop`, PyTorch's Python loop), compiled as the models are:
    the forward pass's `h_{t-1} R` (`[batch, units] x [units, blocks *
    units]`) and the backward pass's `dG_t R^T` at every step, each step
    reading the previous one's result, then the weight gradient
    `H^T dG` as one matmul over `time * batch` rows. Nothing else: no
    element-wise work, no input projection, no optimizer.

    Returns:
        A function of no arguments that runs it once and waits for it.
    """
    from keras import ops

    from keras_rda.ops import scan as scan_lib

    rng = np.random.default_rng(0)
    width = blocks * units
    kernel = ops.convert_to_tensor(rng.normal(0, 0.05, (units, width)), "float32")
    kernel_t = ops.convert_to_tensor(
        np.ascontiguousarray(ops.convert_to_numpy(kernel).T)
    )  # noqa: E501
    gates = ops.convert_to_tensor(
        rng.normal(0, 1, (length, batch_size, width)), "float32"
    )
    hidden = ops.convert_to_tensor(
        rng.normal(0, 1, (length, batch_size, units)), "float32"
    )

    def step_forward(h, _):
        return keras_compat.matmul(h, kernel)[:, :units], ()

    def step_backward(dh, d_gates):
        return keras_compat.matmul(d_gates, kernel_t) + dh, ()

    def run(h0, gates, hidden):
        h, _ = scan_lib.scan(step_forward, h0, gates)
        dh, _ = scan_lib.scan(step_backward, h0, gates, reverse=True)
        d_kernel = ops.matmul(
            ops.transpose(ops.reshape(hidden, (-1, units))),
            ops.reshape(gates, (-1, width)),
        )
        return h, dh, d_kernel

    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        compiled = jax.jit(run)
        wait = jax.block_until_ready
    elif backend == "tensorflow":
        import tensorflow as tf

        compiled = tf.function(run, jit_compile=jit)
        wait = lambda out: [o.numpy() for o in out]  # noqa: E731
    else:
        compiled, wait = run, lambda out: out
    h0 = ops.zeros((batch_size, units))
    return lambda: wait(compiled(h0, gates, hidden))


def floor_of(model):
    """The matmul floor a model's time is set against: its unit's (the RDA's
    for `RDA layer`, `RNN(RDACell)`, ...), or None."""
    for unit in ("RDA", "RWA", "LSTM"):
        if unit in model and f"matmul floor ({unit})" != model:
            if model.startswith(("ParallelRDA", "torch.")):
                return None
            return f"matmul floor ({unit})"
    return None


build = harness.build_model


def _rss_bytes():
    """Current resident set size of this process (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def targets(rng, batch_size, length, return_sequences):
    """Random regression targets: `[batch, T, 1]` for every step, else `[batch, 1]`."""
    shape = (batch_size, length, 1) if return_sequences else (batch_size, 1)
    return rng.random(shape, dtype=np.float32)


def memory_of_one_step(
    name, units, length, input_dim, batch_size, jit, return_sequences=False
):
    """Runs in a subprocess: peak RSS increase of the first training step."""
    import resource

    rng = np.random.default_rng(0)
    x = rng.random((batch_size, length, input_dim), dtype=np.float32)
    y = targets(rng, batch_size, length, return_sequences)
    model = build(name, units, length, input_dim, jit, return_sequences)
    model(x[:1])  # build the weights
    before = _rss_bytes()
    model.train_on_batch(x, y)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"peak_rss_mib": peak / 2**20, "step_increase_mib": (peak - before) / 2**20}


def measure_memory(args, length, jit):
    results = {}
    for name in args.models:
        command = [
            sys.executable,
            os.path.abspath(__file__),
            "--_memory-child",
            name,
            "--units",
            str(args.units),
            "--batch-size",
            str(args.batch_size),
            "--input-dim",
            str(args.input_dim),
            "--lengths",
            str(length),
            "--jit",
            "on" if jit else "off",
        ] + (["--return-sequences"] if args.return_sequences else [])
        out = subprocess.run(command, capture_output=True, text=True, check=True)
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    return results


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--input-dim", type=int, default=2)
    parser.add_argument("--lengths", type=int, nargs="+", default=[100, 1000])
    harness.add_arguments(
        parser, repeats=7, warmup=2, clock="wall", json_help="write the results as JSON"
    )
    parser.add_argument(
        "--models", nargs="+", default=DEFAULT_MODELS, choices=list(MODELS)
    )
    parser.add_argument(
        "--floors",
        nargs="*",
        default=[],
        choices=list(FLOORS),
        help="also time these matmul floors in the same rounds (matmul_floor)",
    )
    parser.add_argument(
        "--reference",
        default="LSTM",
        choices=list(MODELS),
        help="the model every ratio is to (one of --models)",
    )
    parser.add_argument("--jit", choices=["both", "on", "off"], default="both")
    parser.add_argument(
        "--return-sequences",
        action="store_true",
        help="every layer returns every step, and the loss is on every step",
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="also measure each model's peak memory of one training step at "
        "--memory-length, in a subprocess per model",
    )
    parser.add_argument("--memory-length", type=int, default=1000)
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, for a smoke run"
    )
    parser.add_argument("--_memory-child", dest="memory_child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.units, args.batch_size, args.lengths, args.repeats, args.warmup = (
            16,
            8,
            [20],
            2,
            1,
        )
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.memory_child:
        result = memory_of_one_step(
            args.memory_child,
            args.units,
            args.lengths[0],
            args.input_dim,
            args.batch_size,
            args.jit == "on",
            args.return_sequences,
        )
        print(json.dumps(result))
        return result

    jits = {"both": [False, True], "on": [True], "off": [False]}[args.jit]
    run = harness.Run(argv)
    clock = harness.CLOCKS[args.clock]
    rng = np.random.default_rng(0)
    rows = []
    for length in args.lengths:
        x = rng.random((args.batch_size, length, args.input_dim), dtype=np.float32)
        y = targets(rng, args.batch_size, length, args.return_sequences)
        for jit in jits:
            models = {
                name: build(
                    name, args.units, length, args.input_dim, jit, args.return_sequences
                )
                for name in args.models
            }
            floors = {
                name: matmul_floor(
                    FLOORS[name], args.units, args.batch_size, length, jit
                )
                for name in args.floors
            }
            medians = harness.time_steps(
                models, x, y, args.warmup, args.repeats, clock, extra_calls=floors
            )
            reference = medians.get(args.reference)
            for name, seconds in medians.items():
                floor = medians.get(floor_of(name))
                rows.append(
                    {
                        "length": length,
                        "xla": jit,
                        "model": name,
                        "ms_per_step": seconds * 1e3,
                        "ratio_to_lstm": seconds / reference if reference else None,
                        "ratio_to_reference": seconds / floor if floor else None,
                    }
                )
            keras.backend.clear_session()
    memory = None
    if args.memory:
        memory = {
            "length": args.memory_length,
            "xla": jits[0],
            "models": measure_memory(args, args.memory_length, jits[0]),
        }

    backend = keras.backend.backend()
    every_step = "loss on every step, " if args.return_sequences else ""
    print(
        f"\nOne training step (forward + backward + Adam) on {backend}, "
        f"{args.units} units, batch {args.batch_size}, input dim {args.input_dim}, "
        f"{every_step}median {args.clock} time of {args.repeats} interleaved "
        f"steps; ratio = time / {args.reference} time (lower is faster)\n"
    )
    print(f"| T | XLA | model | ms / step | ratio to {args.reference} | to floor |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        ratio, floor = row["ratio_to_lstm"], row["ratio_to_reference"]
        print(
            f"| {row['length']} | {'on' if row['xla'] else 'off'} | {row['model']} "
            f"| {row['ms_per_step']:.1f} | "
            f"{'n/a' if ratio is None else f'{ratio:.2f}'} | "
            f"{'' if floor is None else f'{floor:.2f}'} |"
        )
    if memory:
        print(
            f"\nPeak memory of one training step, T = {memory['length']}, XLA "
            f"{'on' if memory['xla'] else 'off'} (subprocess per model)\n"
        )
        print("| model | step's RSS increase (MiB) | process peak RSS (MiB) |")
        print("|---|---:|---:|")
        for name, m in memory["models"].items():
            print(
                f"| {name} | {m['step_increase_mib']:.0f} | {m['peak_rss_mib']:.0f} |"
            )
    if args.json:
        settings = (
            "units",
            "batch_size",
            "input_dim",
            "lengths",
            "repeats",
            "warmup",
            "clock",
            "return_sequences",
            "floors",
            "reference",
        )
        run.write(
            args.json,
            {
                "kind": "rnn_speed",
                "backend": backend,
                "settings": {k: getattr(args, k) for k in settings},
                "rows": rows,
                "memory": memory,
            },
        )
    return rows


if __name__ == "__main__":
    main()
