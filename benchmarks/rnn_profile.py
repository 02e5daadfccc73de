"""Which kernels take a recurrent layer's training time: a per-kernel profile.

The companion of `rnn_speed.py` (how long) and `rnn_cost.py` (how much
work, by XLA's count): this one says where the time goes in the gradient of
one training step's loss (`Input((T, input_dim)) -> layer -> Dense(1)`, MSE,
on all-ones data), run `--repeats` times under the backend's profiler.

    KERAS_BACKEND=jax python benchmarks/rnn_profile.py [--length 100]
        [--units 250] [--batch-size 100] [--top 8] [--models ...] [--json PATH]
    KERAS_BACKEND=tensorflow python benchmarks/rnn_profile.py [same options]

JAX: the program is `harness.jax_gradient_step` (a jitted `jax.grad`), traced
with `jax.profiler.trace`; the kernels are XLA's compiled kernels, timed
from the Perfetto trace the profiler writes, by their HLO names (`*_fusion`
for fused element-wise work, `dot` or a library fusion for a matmul);
`--dump-hlo DIR` writes the optimised HLO so that a name can be looked up.

TensorFlow: the program is a `tf.function` (no `jit_compile`, so XLA is
off: TF's own op-by-op graph executor, what `model.fit` runs without
`jit_compile`) of `tape.gradient` of the same loss, traced with
`tf.profiler.experimental`; the kernels are the graph's ops, named
"`Type` (op name)" with the name shortened (`op_label`), and their times
are the op self-times of TF's profiler (its `framework_op_stats` tool).
TF runs independent ops on several threads, so the ops' times may add up
to more than the step's. Each TF result also sums the time by op type
(`by_type`): how much goes to matmuls, to element-wise ops and to the
loop's tensor lists (`TensorList*`: the per-step inputs and saved values).
The executor's own control-flow ops (`Enter`, `Merge`, `Switch`,
`NextIteration`, `Exit`) and `Identity` are not traced (not even with
`host_tracer_level=3`), and cheap ops such as `TensorListGetItem` only in
part (fewer launches than they run): their cost and the executor's
scheduling are in the step's time but in no op's.

Per model it prints the step's time (the mean of the traced steps), the
kernels that take the most of it (time per training step and launches per
step: a kernel inside the time loop runs T times), and what share of the
kernels' time goes to those launched every time step.
"""

import argparse
import collections
import glob
import gzip
import json
import os
import re
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import keras  # noqa: E402

#: The layers of `rnn_speed.py` and `rnn_cost.py`.
MODELS = harness.LAYERS

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


def mean_seconds(call, repeats):
    """Mean wall-clock seconds of `repeats` calls of `call()`."""
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    return (time.perf_counter() - start) / repeats


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


def trace_jax(name, args):
    """Mean traced seconds and `{kernel: (microseconds, launches)}`, JAX."""
    import jax

    step, inputs = harness.jax_gradient_step(
        name, args.units, args.length, args.batch_size, args.input_dim
    )
    for _ in range(max(args.warmup, 1)):  # compile and warm up
        jax.block_until_ready(step(*inputs))
    if args.dump_hlo:
        os.makedirs(args.dump_hlo, exist_ok=True)
        text = step.lower(*inputs).compile().as_text()
        path = os.path.join(args.dump_hlo, name.replace(" ", "_") + ".hlo.txt")
        with open(path, "w") as f:
            f.write(text)
    with tempfile.TemporaryDirectory() as trace_dir:
        with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
            seconds = mean_seconds(
                lambda: jax.block_until_ready(step(*inputs)), args.repeats
            )
        return seconds, kernel_times(trace_dir), None


def tensorflow_gradient_step(name, units, length, batch_size, input_dim):
    """A `tf.function` (XLA off) of the loss's gradient and its arguments.

    TensorFlow's counterpart of `harness.jax_gradient_step`: the gradient of
    the MSE loss of `Input((length, input_dim)) -> layer -> Dense(1)` with
    respect to the trainable variables, on all-ones data.
    """
    import tensorflow as tf

    model = keras.Sequential(
        [keras.Input((length, input_dim)), MODELS[name](units), keras.layers.Dense(1)]
    )

    @tf.function(jit_compile=False)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
        return tape.gradient(loss, model.trainable_variables)

    x = tf.ones((batch_size, length, input_dim))
    y = tf.ones((batch_size, 1))
    return step, (x, y)


def op_stats(trace_dir):
    """TF profiler's per-op rows (`framework_op_stats`), idle time left out.

    Each row is a dict of the tool's columns: `type`, `operation`,
    `occurrences`, `total_self_time` (microseconds), ...
    """
    from tensorflow.python.profiler.internal import _pywrap_profiler_plugin as pp

    files = glob.glob(os.path.join(trace_dir, "**", "*.xplane.pb"), recursive=True)
    if not files:
        raise SystemExit(f"the profiler wrote no trace under {trace_dir}")
    data, ok = pp.xspace_to_tools_data(files[:1], "framework_op_stats", {})
    if not ok:
        raise SystemExit(f"TF's profiler could not read {files[0]}")
    table = json.loads(data)[0]
    columns = [column["id"] for column in table["cols"]]
    rows = [
        {key: (cell or {}).get("v") for key, cell in zip(columns, row["c"])}
        for row in table["rows"]
    ]
    return [row for row in rows if row["type"] != "IDLE"]


def op_label(operation):
    """A TF op's name, shortened: `lstm_1/while/body/lstm_cell_1/MatMul_1`.

    TF names an op in a loop body (or condition) `<loop>/body/_<n>/<scopes>/
    <op>`, the scopes repeating the loop's (and, in a gradient loop, also
    the forward loop's) own. This drops the model's scope (`sequential_1/`),
    the body's number, the scopes of the body's name that its loop's name
    already has (and `gradients`), and names the gradient loop `A/A_grad`
    as `A_grad`.
    """
    operation = re.sub(r"\b(sequential|functional)(_\d+)?/", "", operation)
    loop, *parts = re.split(r"/(body|cond)/_\d+/", operation)
    label = outer = re.sub(r"^(.*/)?(.+)/\2_grad$", r"\1\2_grad", loop)
    for kind, body in zip(parts[::2], parts[1::2]):
        *scopes, op = body.split("/")
        seen = set(re.split(r"/|_grad$", outer)) | {"gradients"}
        outer = "/".join([s for s in scopes if s not in seen] + [op])
        label += f"/{kind}/{outer}"
    return label


def trace_tensorflow(name, args):
    """Mean traced seconds, `{kernel: (microseconds, launches)}` and op types.

    The kernels are TF's ops, named "`Type` (op_label(name))" (ops whose
    labels coincide are summed); the third value maps each to its op type.
    """
    import tensorflow as tf

    if args.dump_hlo:
        raise SystemExit("--dump-hlo needs KERAS_BACKEND=jax (TF runs with XLA off)")
    step, inputs = tensorflow_gradient_step(
        name, args.units, args.length, args.batch_size, args.input_dim
    )
    for _ in range(max(args.warmup, 1)):  # trace the graph and warm up
        step(*inputs)
    with tempfile.TemporaryDirectory() as trace_dir:
        tf.profiler.experimental.start(trace_dir)
        try:
            seconds = mean_seconds(lambda: step(*inputs), args.repeats)
        finally:
            tf.profiler.experimental.stop()
        rows = op_stats(trace_dir)
    times, types = collections.defaultdict(lambda: (0, 0)), {}
    for row in rows:
        kernel = f"`{row['type']}` ({op_label(row['operation'])})"
        micros, count = times[kernel]
        times[kernel] = (micros + row["total_self_time"], count + row["occurrences"])
        types[kernel] = row["type"]
    return seconds, dict(times), types


_TRACERS = {"jax": trace_jax, "tensorflow": trace_tensorflow}


def per_step_rows(times, repeats):
    """`{kernel, ms_per_step, launches_per_step}` rows, slowest first."""
    rows = [
        {
            "kernel": kernel,
            "ms_per_step": micros / 1e3 / repeats,
            "launches_per_step": count / repeats,
        }
        for kernel, (micros, count) in times.items()
    ]
    return sorted(rows, key=lambda row: -row["ms_per_step"])


def by_type(rows, types):
    """`{type, ms_per_step}` rows: the kernels' time summed by type."""
    total = collections.Counter()
    for row in rows:
        total[types[row["kernel"]]] += row["ms_per_step"]
    return [{"type": t, "ms_per_step": ms} for t, ms in total.most_common()]


def profile(name, args):
    """Step time and kernel table of one model on the current backend."""
    seconds, times, types = _TRACERS[keras.backend.backend()](name, args)
    keras.backend.clear_session()
    rows = per_step_rows(times, args.repeats)
    in_loop = sum(
        r["ms_per_step"] for r in rows if r["launches_per_step"] >= args.length
    )
    result = {
        "model": name,
        "ms_per_step_traced": seconds * 1e3,
        "kernels_ms_per_step": sum(r["ms_per_step"] for r in rows),
        "loop_kernels_ms_per_step": in_loop,
        "kernels": rows,
    }
    if types is not None:
        result["by_type"] = by_type(rows, types)
    return result


def print_table(header, rows, columns, top):
    """Print the first `top` rows as a Markdown table.

    `columns` are `(key, format)` pairs, the first one the row's name (put in
    backticks unless it has them).
    """
    print("| " + " | ".join(header) + " |")
    print("|---|" + "---:|" * (len(header) - 1))
    for row in rows[:top]:
        (key, _), *rest = columns
        label = row[key] if "`" in row[key] else f"`{row[key]}`"
        cells = [label] + [format(row[k], spec) for k, spec in rest]
        print("| " + " | ".join(cells) + " |")
    print()


def print_result(result, top):
    """Print one model's step time, kernel table and (TF) time by op type."""
    share = result["loop_kernels_ms_per_step"] / result["kernels_ms_per_step"]
    print(
        f"{result['model']}: {result['ms_per_step_traced']:.1f} ms per step "
        f"(kernels {result['kernels_ms_per_step']:.1f} ms, of which "
        f"{share:.0%} in kernels launched every time step)\n"
    )
    print_table(
        ["kernel", "ms / step", "launches / step"],
        result["kernels"],
        [("kernel", ""), ("ms_per_step", ".2f"), ("launches_per_step", ".0f")],
        top,
    )
    if result.get("by_type"):
        print_table(
            ["op type", "ms / step"],
            result["by_type"],
            [("type", ""), ("ms_per_step", ".2f")],
            top,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--input-dim", type=int, default=2)
    parser.add_argument("--length", type=int, default=100)
    harness.add_arguments(parser, repeats=7, warmup=2)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument(
        "--models",
        nargs="+",
        default=["LSTM", "RDA layer", "RWA layer"],
        choices=MODELS,
    )
    parser.add_argument(
        "--dump-hlo", metavar="DIR", help="write the optimised HLO (JAX only)"
    )
    args = parser.parse_args(argv)
    run = harness.Run(argv)
    backend = keras.backend.backend()
    if backend not in _TRACERS:
        raise SystemExit(
            "rnn_profile.py reads JAX's or TensorFlow's profiler: run it with "
            "KERAS_BACKEND=jax or KERAS_BACKEND=tensorflow"
        )

    results = [profile(name, args) for name in args.models]
    print(
        f"\nGradient of one training step on {backend}, T = {args.length}, "
        f"{args.units} units, batch {args.batch_size}, input dim "
        f"{args.input_dim}; mean of {args.repeats} traced steps\n"
    )
    for result in results:
        print_result(result, args.top)
    if args.json:
        settings = ("units", "batch_size", "input_dim", "length", "repeats")
        run.write(
            args.json,
            {
                "kind": "rnn_profile",
                "benchmark": "rnn_profile",
                "backend": backend,
                "settings": {k: getattr(args, k) for k in settings},
                "results": results,
            },
        )
    return results


if __name__ == "__main__":
    main()
