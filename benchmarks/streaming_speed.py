"""Per-step latency of streaming step models in onnxruntime, LiteRT and Keras.

For LSTM, GRU, RDA, RWA, ParallelRDA and DNC+UW (an LSTM controller, 16
slots of 16, Uniform Writing every 4 steps) with `--units` units (250),
`--features` inputs (64) and batch `--batch` (1), the step model
(`keras_rda.streaming.step_model`) is exported to ONNX and to LiteRT with
builtin ops only, and one step is timed in onnxruntime and in the LiteRT
interpreter, both with one thread, and in Keras (`step(...)` eagerly, the
same model; `--keras` off skips it). The models' steps are timed
interleaved, one step of each in turn, `--steps` timed steps per model
(1,000 by default) after `--warmup` untimed ones, in one process; a row
gives the median and the range (min-max) in microseconds, the ratio of the
median to the LSTM's in the same runtime, and the artifacts' sizes. A
model that does not export to a format (DNC+UW to LiteRT: its addressing
needs Flex ops) has an empty cell, with the reason in the record's notes.

Run:
    python benchmarks/streaming_speed.py [--units 250] [--features 64]
        [--batch 1] [--steps 1000] [--warmup 100] [--keras on|off]
        [--json PATH]
"""

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import keras_rda  # noqa: E402
from keras_rda import streaming  # noqa: E402
from keras_rda.streaming import export  # noqa: E402

MODELS = ("LSTM", "GRU", "RDA", "RWA", "ParallelRDA", "DNC+UW")
RUNTIMES = ("onnxruntime", "LiteRT", "Keras")


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


def onnx_runner(path):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )
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


def build(name, args, directory):
    """`{runtime: (run, size in bytes or None)}` and `{runtime: why not}`."""
    model = keras.Sequential(
        [keras.Input((None, args.features)), sequence_layer(name, args.units)]
    )
    step = streaming.step_model(model)
    names = [t.name for t in step.inputs]
    feeds = dict(
        zip(
            names,
            [
                np.random.RandomState(0)
                .randn(args.batch, args.features)
                .astype("float32"),
                *streaming.initial_states(step, args.batch),
            ],
        )
    )
    runners, failures = {}, {}
    stem = os.path.join(directory, name.replace("+", "_"))
    try:
        path = export.export_onnx(step, stem + ".onnx")
        runners["onnxruntime"] = (onnx_runner(path), os.path.getsize(path))
    except ValueError as error:
        failures["onnxruntime"] = str(error)[:300]
    try:
        path = export.export_litert(step, stem + ".tflite")
        runners["LiteRT"] = (litert_runner(path), os.path.getsize(path))
    except ValueError as error:
        failures["LiteRT"] = str(error)[:300]
    if args.keras == "on":
        runners["Keras"] = (keras_runner(step), None)
    return runners, failures, feeds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--keras", choices=("on", "off"), default="on")
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--json", metavar="PATH", help="write the table record")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as directory:
        built = {name: build(name, args, directory) for name in args.models}
        timings = {
            (name, runtime): []
            for name, (runners, _, _) in built.items()
            for runtime in runners
        }
        for round_ in range(args.warmup + args.steps):
            for (name, runtime), times in timings.items():
                runners, _, feeds = built[name]
                run = runners[runtime][0]
                start = time.perf_counter()
                run(feeds)
                elapsed = time.perf_counter() - start
                if round_ >= args.warmup:
                    times.append(elapsed * 1e6)
    load_after = os.getloadavg()
    medians = {key: statistics.median(times) for key, times in timings.items()}
    columns = (
        ["model"]
        + [f"{runtime} µs (range), x LSTM" for runtime in RUNTIMES]
        + ["ONNX KiB", "LiteRT KiB"]
    )
    rows, notes = [], []
    for name in args.models:
        runners, failures, _ = built[name]
        row = [name]
        for runtime in RUNTIMES:
            key = (name, runtime)
            if key not in timings:
                row.append("")
                continue
            times = timings[key]
            lstm = medians.get(("LSTM", runtime))
            ratio = f", {medians[key] / lstm:.2f}x" if lstm else ""
            row.append(f"{medians[key]:.0f} ({min(times):.0f}-{max(times):.0f}){ratio}")
        for runtime in ("onnxruntime", "LiteRT"):
            size = runners.get(runtime, (None, None))[1]
            row.append(f"{size / 1024:.0f}" if size else "")
        rows.append(row)
        notes += [f"{name} to {runtime}: {why}" for runtime, why in failures.items()]
        print(" | ".join(row))
    for note in notes:
        print(note)
    if args.json:
        from keras_rda.lab.reporting.provenance import script_command
        from keras_rda.lab.reporting.report import write_table_record

        table = {
            "benchmark": "streaming_speed",
            "columns": columns,
            "rows": rows,
            "notes": [
                f"per-step latency, batch {args.batch}, {args.units} units, "
                f"{args.features} inputs, one thread; {args.steps} timed steps "
                f"per model after {args.warmup} warm-up steps, interleaved, in "
                "one process; median (min-max) in microseconds",
                f"machine: {os.cpu_count()} CPUs; load average (1, 5, 15 min) "
                f"before {load_before}, after {load_after}: other processes "
                "shared the CPUs when it was above the CPU count",
                *notes,
            ],
        }
        print("record:", write_table_record(args.json, table, script_command(argv)))


if __name__ == "__main__":
    main()
