"""Which kernels take a recurrent layer's training time: a per-kernel profile.

The companion of `rnn_speed.py` (how long) and `rnn_cost.py` (how much
work, by XLA's count): this one says where the time goes. It compiles the
gradient of one training step's loss (`rnn_cost.gradient_step`)
with JAX, runs it `--repeats` times under `jax.profiler.trace`, reads the
Perfetto trace the profiler writes, and sums the time of every compiled
kernel (XLA's fusions, matmuls and copies, by their HLO names) over the
repeats.

    KERAS_BACKEND=jax python benchmarks/rnn_profile.py [--length 100]
        [--units 250] [--batch-size 100] [--top 8] [--json PATH]

Per model it prints the step's time, the kernels that take the most of it
(time per training step and launches per step: a kernel inside the time
loop runs T times), and what share of the step the loop's kernels take.
Kernel names are XLA's (`*_fusion` for fused element-wise work, `dot` or a
library fusion for a matmul); `--dump-hlo DIR` writes the optimised HLO so
that a name can be looked up.
"""

import argparse
import collections
import glob
import gzip
import json
import os
import shlex
import sys
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
from rnn_cost import MODELS  # noqa: E402  (the same models and program)
from rnn_cost import gradient_step  # noqa: E402

from keras_rda.experiments.provenance import provenance  # noqa: E402
from keras_rda.experiments.report import write_json  # noqa: E402

#: Trace events that are not kernels: host-side Python, the runtime's own
#: bookkeeping and waits, and the loops and calls that contain kernels (their
#: time is their kernels' time plus the loop's own overhead).
_NOT_KERNELS = (
    "$",
    "ThunkExecutor",
    "SlinkyThreadPool",
    "PjRt",
    "Thunk",
    "PjitFunction",
    "CommonPjRt",
    "while",
    "conditional",
    "call",
)


def kernel_times(trace_dir):
    """`{kernel: (total microseconds, launches)}` from a Perfetto trace."""
    files = glob.glob(os.path.join(trace_dir, "**", "*.trace.json.gz"), recursive=True)
    if not files:
        raise SystemExit(f"the profiler wrote no trace under {trace_dir}")
    with gzip.open(files[0]) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    total = collections.Counter()
    launches = collections.Counter()
    for event in events:
        if event.get("ph") != "X" or "dur" not in event:
            continue
        name = event.get("name", "")
        if name.startswith(_NOT_KERNELS):
            continue
        total[name] += event["dur"]
        launches[name] += 1
    return {name: (total[name], launches[name]) for name in total}


def profile(name, args):
    """Step time and kernel table of one model."""
    import jax

    step, inputs = gradient_step(
        name, args.units, args.length, args.batch_size, args.input_dim
    )
    jax.block_until_ready(step(*inputs))  # compile and warm up
    if args.dump_hlo:
        os.makedirs(args.dump_hlo, exist_ok=True)
        text = step.lower(*inputs).compile().as_text()
        path = os.path.join(args.dump_hlo, name.replace(" ", "_") + ".hlo.txt")
        with open(path, "w") as f:
            f.write(text)
    with tempfile.TemporaryDirectory() as trace_dir:
        start = time.perf_counter()
        with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
            for _ in range(args.repeats):
                jax.block_until_ready(step(*inputs))
        seconds = (time.perf_counter() - start) / args.repeats
        kernels = kernel_times(trace_dir)
    keras.backend.clear_session()
    rows = [
        {
            "kernel": kernel,
            "ms_per_step": micros / 1e3 / args.repeats,
            "launches_per_step": count / args.repeats,
        }
        for kernel, (micros, count) in kernels.items()
    ]
    rows.sort(key=lambda row: -row["ms_per_step"])
    in_loop = sum(
        r["ms_per_step"] for r in rows if r["launches_per_step"] >= args.length
    )
    all_kernels = sum(r["ms_per_step"] for r in rows)
    return {
        "model": name,
        "ms_per_step_traced": seconds * 1e3,
        "kernels_ms_per_step": all_kernels,
        "loop_kernels_ms_per_step": in_loop,
        "kernels": rows,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--input-dim", type=int, default=2)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument(
        "--models",
        nargs="+",
        default=["LSTM", "RDA layer", "RWA layer"],
        choices=MODELS,
    )
    parser.add_argument("--dump-hlo", metavar="DIR", help="write the optimised HLO")
    parser.add_argument("--json", metavar="PATH", help="write the record here")
    args = parser.parse_args(argv)
    if keras.backend.backend() != "jax":
        raise SystemExit(
            "rnn_profile.py reads JAX's profiler: run it with KERAS_BACKEND=jax"
        )

    results = [profile(name, args) for name in args.models]
    print(
        f"\nGradient of one training step, T = {args.length}, {args.units} units, "
        f"batch {args.batch_size}, input dim {args.input_dim}; mean of "
        f"{args.repeats} traced steps\n"
    )
    for result in results:
        share = result["loop_kernels_ms_per_step"] / result["kernels_ms_per_step"]
        print(
            f"{result['model']}: {result['ms_per_step_traced']:.1f} ms per step "
            f"(kernels {result['kernels_ms_per_step']:.1f} ms, of which "
            f"{share:.0%} in kernels launched every time step)\n"
        )
        print("| kernel | ms / step | launches / step |")
        print("|---|---:|---:|")
        for row in result["kernels"][: args.top]:
            print(
                f"| `{row['kernel']}` | {row['ms_per_step']:.2f} | "
                f"{row['launches_per_step']:.0f} |"
            )
        print()
    if args.json:
        record = {
            "benchmark": "rnn_profile",
            "command": "KERAS_BACKEND=jax python benchmarks/rnn_profile.py "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            **provenance(),
            "settings": {
                k: getattr(args, k)
                for k in ("units", "batch_size", "input_dim", "length", "repeats")
            },
            "results": results,
        }
        write_json(args.json, record)
    return results


if __name__ == "__main__":
    main()
