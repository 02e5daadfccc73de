"""Per-step latency of streaming step models in onnxruntime, LiteRT and Keras.

For LSTM, GRU, RDA, RWA, ParallelRDA and DNC+UW (an LSTM controller, 16
slots of 16, Uniform Writing every 4 steps) with `--units` units (250) and
`--features` inputs (64), the step model (`keras_rda.streaming.step_model`,
its inference form) is exported to ONNX and to LiteRT with builtin ops
only, and one step is timed in onnxruntime and in the LiteRT interpreter,
both with one thread, and in Keras (`step(...)` eagerly, the same model;
`--keras off` skips it), at each batch size of `--batches` (1 and 32).
Each step starts from the state a stream has after `STREAM_STEPS` (20)
steps of random inputs. Every model, runtime and batch size is timed
interleaved, one step of each in turn per round, `--repeats` rounds (1,000)
after `--warmup` untimed ones, in one process (`harness.interleaved`). A
row gives the median and the range (min-max) in microseconds and the
ratio of the median to the LSTM's in the same runtime at the same batch
size; then the ONNX graph's node count in the inference form and in the
training form
(`step_model(inference_form=False)`), and the artifacts' sizes.

After the timing, onnxruntime's profiler times each kernel of every ONNX
step (`--profile-steps` runs, batch by batch): the record keeps each op
type's time per run (the median of each kernel, summed), and a note for
every ratio above its target in onnxruntime or LiteRT (`TARGETS`: the RDA
at most 1.0x the LSTM at batch 1 and 0.9x at batch 32, the RWA 1.0x and
0.75x) compares the unit's profile with the LSTM's: matrix products
against the other kernels, and how many kernels a run has. The record
keeps each target with its ratios and whether it was met (`targets`), and
each step's ONNX node count beside the LSTM's (`onnx_nodes`).

Run:
    python benchmarks/streaming_speed.py [--units 250] [--features 64]
        [--batches 1 32] [--repeats 1000] [--warmup 100] [--keras on|off]
        [--profile-steps 500] [--json PATH]
"""

import argparse
import collections
import functools
import json
import os
import statistics
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

import keras_rda  # noqa: E402
from keras_rda import streaming  # noqa: E402
from keras_rda.streaming import export  # noqa: E402

MODELS = ("LSTM", "GRU", "RDA", "RWA", "ParallelRDA", "DNC+UW")
RUNTIMES = ("onnxruntime", "LiteRT", "Keras")
#: Issue 65's targets, in onnxruntime and LiteRT: the unit's median step at
#: most this times the LSTM's, by batch size (other batch sizes: the
#: largest listed at or below it).
TARGETS = {"RDA": {1: 1.0, 32: 0.9}, "RWA": {1: 1.0, 32: 0.75}}
TARGET_RUNTIMES = ("onnxruntime", "LiteRT")


def target(name, batch):
    """The target ratio of `name` at `batch`, or None."""
    limits = TARGETS.get(name, {})
    listed = [size for size in sorted(limits) if size <= batch]
    return limits[listed[-1]] if listed else None


def sequence_layer(name, units):
    if name == "LSTM":
        return keras.layers.LSTM(units, return_sequences=True)
    if name == "GRU":
        return keras.layers.GRU(units, return_sequences=True)
    if name == "DNC+UW":
        return keras_rda.DNC(
            keras.layers.LSTMCell(units),
            memory_size=16,
            word_size=16,
            write_schedule=keras_rda.UniformWriting(interval=4),
            return_sequences=True,
        )
    return getattr(keras_rda, name)(units, return_sequences=True)


def trained_like(model, seed=0):
    """Every weight drawn from N(0, 0.1^2), as no initial weights are: the
    exporters fold constants, and a bias still at zeros would drop an op
    that a trained model's step runs."""
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        value = 0.1 * rng.standard_normal(tuple(weight.shape))
        weight.assign(value.astype(weight.dtype))


def onnx_session(path, profile=False):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    if profile:
        options.enable_profiling = True
        options.profile_file_prefix = str(path) + ".profile"
    return onnxruntime.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )


def onnx_runner(path):
    session = onnx_session(path)
    names = [i.name for i in session.get_inputs()]

    def run(feeds):
        return session.run(None, {n: feeds[n] for n in names})

    return run


def litert_runner(path):
    runner = export.litert_interpreter(path, num_threads=1).get_signature_runner(
        "serving_default"
    )
    return lambda feeds: runner(**feeds)


def keras_runner(step):
    names = [t.name for t in step.inputs]
    return lambda feeds: step([feeds[n] for n in names])


def onnx_nodes(path):
    import onnx

    return len(onnx.load(str(path)).graph.node)


def onnx_profile(path, feeds, steps):
    """onnxruntime's profile of `steps` runs: `{"run_us": median time of a
    run, "kernels": kernels per run, "ops": {op type: µs}}`, each kernel's
    median time summed by op type (medians: a kernel that another process
    preempted does not count)."""
    session = onnx_session(path, profile=True)
    names = [i.name for i in session.get_inputs()]
    for _ in range(steps):
        session.run(None, {n: feeds[n] for n in names})
    profile_path = session.end_profiling()
    with open(profile_path) as file:
        events = json.load(file)
    os.remove(profile_path)
    kernels = collections.defaultdict(list)
    runs = []
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            kernels[(event["name"], event["args"]["op_name"])].append(event["dur"])
        elif event.get("cat") == "Session" and event["name"] == "model_run":
            runs.append(event["dur"])
    per_op = collections.Counter()
    for (_, op), times in kernels.items():
        per_op[op] += statistics.median(times)
    return {
        "run_us": statistics.median(runs),
        "kernels": len(kernels),
        "ops": dict(per_op.most_common()),
    }


#: Steps the step model runs from its initial state before the timed step's
#: state is taken: a stream's state, not the empty one.
STREAM_STEPS = 20


def step_feeds(step, batch, features):
    """The timed step's inputs: `x_t` and the state after `STREAM_STEPS`
    steps of a stream (in Keras), as a deployed stream carries it."""
    names = [t.name for t in step.inputs]
    rng = np.random.RandomState(0)
    states = streaming.initial_states(step, batch)
    for _ in range(STREAM_STEPS):
        x_t = rng.randn(batch, features).astype("float32")
        _, *states = step([x_t, *states])
        states = [np.asarray(keras.ops.convert_to_numpy(s)) for s in states]
    x_t = rng.randn(batch, features).astype("float32")
    return dict(zip(names, [x_t, *states]))


def export_all(name, args, directory):
    """The step model's artifacts: `(step, paths, sizes, nodes, failures)`."""
    model = keras.Sequential(
        [keras.Input((None, args.features)), sequence_layer(name, args.units)]
    )
    trained_like(model)
    step = streaming.step_model(model)
    stem = os.path.join(directory, name.replace("+", "_"))
    paths, sizes, failures = {}, {}, {}
    writers = {"onnxruntime": (export.export_onnx, ".onnx")}
    writers["LiteRT"] = (export.export_litert, ".tflite")
    for runtime, (write, suffix) in writers.items():
        try:
            paths[runtime] = write(step, stem + suffix)
            sizes[runtime] = os.path.getsize(paths[runtime])
        except ValueError as error:
            failures[runtime] = str(error)[:300]
    nodes = {}
    if "onnxruntime" in paths:
        nodes["inference"] = onnx_nodes(paths["onnxruntime"])
        training = streaming.step_model(model, inference_form=False)
        nodes["training"] = onnx_nodes(
            export.export_onnx(training, stem + "_training.onnx")
        )
    return step, paths, sizes, nodes, failures


def build(name, args, directory):
    """Runners for every runtime and batch size, and what the rows need."""
    step, paths, sizes, nodes, failures = export_all(name, args, directory)
    makers = {"onnxruntime": onnx_runner, "LiteRT": litert_runner}
    runners = {}
    for batch in args.batches:
        feeds = step_feeds(step, batch, args.features)
        for runtime, path in paths.items():
            runners[(runtime, batch)] = (makers[runtime](path), feeds)
        if args.keras == "on":
            runners[("Keras", batch)] = (keras_runner(step), feeds)
    return {
        "step": step,
        "paths": paths,
        "sizes": sizes,
        "nodes": nodes,
        "failures": failures,
        "runners": runners,
    }


def time_interleaved(built, args):
    """`{(model, runtime, batch): [microseconds]}`, one step of each per round
    (`harness.interleaved`)."""
    calls = {
        (name, runtime, batch): functools.partial(run, feeds)
        for name, entry in built.items()
        for (runtime, batch), (run, feeds) in entry["runners"].items()
    }
    times = harness.interleaved(calls, args.warmup, args.repeats)
    return {key: [s * 1e6 for s in seconds] for key, seconds in times.items()}


def time_cell(timings, medians, name, runtime, batch):
    key = (name, runtime, batch)
    if key not in timings:
        return ""
    times = timings[key]
    lstm = medians.get(("LSTM", runtime, batch))
    ratio = f", {medians[key] / lstm:.2f}x" if lstm else ""
    return f"{medians[key]:.0f} ({min(times):.0f}-{max(times):.0f}){ratio}"


#: onnxruntime's matrix products (the rest are element-wise or reshaping).
MATRIX_OPS = ("MatMul", "Gemm", "FusedMatMul", "FusedGemm")


def profile_text(name, profile):
    ops = profile["ops"]
    matrix = sum(us for op, us in ops.items() if op in MATRIX_OPS)
    others = sum(us for op, us in ops.items() if op not in MATRIX_OPS)
    top = ", ".join(f"{op} {us:.1f}" for op, us in ops.items() if op not in MATRIX_OPS)
    return (
        f"{name}: a run {profile['run_us']:.0f} µs, {profile['kernels']} "
        f"kernels, matrix products {matrix:.1f} µs, the other kernels "
        f"{others:.1f} µs ({top})"
    )


def profiles(built, args):
    """`{(model, batch): onnx_profile(...)}` of every ONNX step."""
    result = {}
    for name, entry in built.items():
        path = entry["paths"].get("onnxruntime")
        if path is None or args.profile_steps <= 0:
            continue
        for batch in args.batches:
            feeds = step_feeds(entry["step"], batch, args.features)
            result[(name, batch)] = onnx_profile(path, feeds, args.profile_steps)
    return result


def missed_targets(medians, profiled):
    """A note for every ratio above its target, with the ONNX profiles."""
    notes = []
    for (name, runtime, batch), median in sorted(medians.items()):
        lstm = medians.get(("LSTM", runtime, batch))
        limit = target(name, batch)
        if runtime not in TARGET_RUNTIMES or limit is None or not lstm:
            continue
        if median / lstm <= limit:
            continue
        note = (
            f"Target missed: {name} in {runtime} at batch {batch}, "
            f"{median / lstm:.2f}x the LSTM (target <= {limit}x)."
        )
        if (name, batch) in profiled and ("LSTM", batch) in profiled:
            note += (
                " onnxruntime's profile (median µs per kernel, summed) of the "
                f"{profile_text(name, profiled[(name, batch)])}; of the "
                f"{profile_text('LSTM', profiled[('LSTM', batch)])}."
            )
        notes.append(note)
    return notes


def target_records(medians, batches):
    """Every target of `TARGETS` at the run's batch sizes: its ratio in each
    runtime of `TARGET_RUNTIMES` and whether all are met."""
    records = []
    for name in TARGETS:
        for batch in batches:
            limit = target(name, batch)
            ratios = {}
            for runtime in TARGET_RUNTIMES:
                lstm = medians.get(("LSTM", runtime, batch))
                median = medians.get((name, runtime, batch))
                if lstm and median:
                    ratios[runtime] = round(median / lstm, 3)
            if limit is None or not ratios:
                continue
            records.append(
                {
                    "model": name,
                    "batch": batch,
                    "at_most": limit,
                    "ratios": ratios,
                    "met": all(r <= limit for r in ratios.values())
                    and len(ratios) == len(TARGET_RUNTIMES),
                }
            )
    return records


def node_records(built):
    """Each step model's ONNX node count (inference and training form)
    beside the LSTM's."""
    lstm = built.get("LSTM", {}).get("nodes", {}).get("inference")
    return [
        {"model": name, **entry["nodes"], "lstm": lstm}
        for name, entry in built.items()
        if entry["nodes"]
    ]


def rows_of(built, timings, args):
    medians = {key: statistics.median(times) for key, times in timings.items()}
    rows = []
    for name, entry in built.items():
        for batch in args.batches:
            row = [name, str(batch)]
            row += [time_cell(timings, medians, name, r, batch) for r in RUNTIMES]
            nodes = entry["nodes"]
            lstm_nodes = built.get("LSTM", {}).get("nodes", {}).get("inference")
            ratio = f", {nodes['inference'] / lstm_nodes:.2f}x" if lstm_nodes else ""
            row.append(
                f"{nodes['inference']} ({nodes['training']}){ratio}" if nodes else ""
            )
            for runtime in ("onnxruntime", "LiteRT"):
                size = entry["sizes"].get(runtime)
                row.append(f"{size / 1024:.0f}" if size else "")
            rows.append(row)
    return rows, medians


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    # A round is one step of every model, runtime and batch size.
    harness.add_arguments(
        parser, repeats=1000, warmup=100, json_help="write the table record"
    )
    parser.add_argument("--keras", choices=("on", "off"), default="on")
    parser.add_argument("--profile-steps", type=int, default=500)
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    args = parser.parse_args(argv)
    for flag in ("units", "features", "repeats"):
        value = getattr(args, flag)
        if value < 1:
            parser.error(f"--{flag} must be a positive integer, got {value}")
    if min(args.batches) < 1:
        parser.error(f"--batches must be positive integers, got {args.batches}")
    unknown = sorted(set(args.models) - set(MODELS))
    if unknown:
        parser.error(f"--models must be among {list(MODELS)}, got {unknown}")
    return args


def main(argv=None):
    args = parse(argv)
    run = harness.Run(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as directory:
        built = {name: build(name, args, directory) for name in args.models}
        timings = time_interleaved(built, args)
        load_after = os.getloadavg()
        profiled = profiles(built, args)
    rows, medians = rows_of(built, timings, args)
    columns = (
        ["model", "batch"]
        + [f"{runtime} µs (range), x LSTM" for runtime in RUNTIMES]
        + ["ONNX nodes (training form), x LSTM", "ONNX KiB", "LiteRT KiB"]
    )
    failures = [
        f"{name} to {runtime}: {why}"
        for name, entry in built.items()
        for runtime, why in entry["failures"].items()
    ]
    notes = [
        f"Per-step latency of the step model, {args.units} units, "
        f"{args.features} inputs, one thread, from the state of a stream "
        f"{STREAM_STEPS} steps in; {args.repeats} timed steps per "
        f"model, runtime and batch after {args.warmup} warm-up steps, "
        "interleaved (one step of each per round), in one process; median "
        "(min-max) in microseconds, and the median's ratio to the LSTM's in "
        "the same runtime at the same batch size.",
        f"Machine: {os.cpu_count()} CPUs, load average (1, 5, 15 min) "
        f"{tuple(round(v, 1) for v in load_before)} before the timing and "
        f"{tuple(round(v, 1) for v in load_after)} after: other processes "
        "shared the CPUs, so the ratios (same run) mean more than the times.",
        *failures,
    ]
    # A missed target's profile stays in the record (`missed_targets`), out
    # of the guide's table notes.
    misses = missed_targets(medians, profiled)
    targets = target_records(medians, args.batches)
    nodes = node_records(built)
    for row in rows:
        print(" | ".join(row))
    for note in notes + misses:
        print(note)
    for record in targets:
        print("target:", json.dumps(record))
    if args.json:
        table = {
            "benchmark": "streaming_speed",
            "columns": columns,
            "rows": rows,
            "notes": notes,
        }
        profile_list = [
            {"model": name, "batch": batch, **profile}
            for (name, batch), profile in profiled.items()
        ]
        path = run.write_table(
            args.json,
            table,
            profiles=profile_list,
            targets=targets,
            missed_targets=misses,
            onnx_nodes=nodes,
        )
        print("record:", path)


if __name__ == "__main__":
    main()
