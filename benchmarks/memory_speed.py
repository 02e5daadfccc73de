"""Training-step time of the DNC/NTM layers with Uniform and Cached Uniform
Writing, against the LSTM controller alone and the regular-writing cell.

Le et al. 2019 (section 3.1, Fig. 2b) measure up to 60% less training time
for DNC+UW and 28% for NTM+UW than with regular writing. This benchmark
times one training step (forward, backward, Adam update) of

- `LSTM`: the controller alone, `keras.layers.RNN(LSTMCell(100))`, the
  reference of the layers' 1.3x target;
- `DNC cell` / `NTM cell`: `keras.layers.RNN(DNCCell/NTMCell)` with regular
  writing (the reference of the schedules);
- `DNC+UW cell`: `keras.layers.RNN(DNCCell)` with Uniform Writing, the
  cell's conditional path (cannot be compiled with XLA for training);
- `DNC+UW`, `DNC+CUW` (cache 5), `NTM+UW`: the `DNC` / `NTM` layers, whose
  static schedule runs the controller as a plain loop between writes;
- `DNC+UW unrolled`: the `DNC+UW` layer with `unroll=True` (every step
  traced on its own, no loop), timed without XLA only (under XLA unrolling
  makes the program minutes to compile and slower to run, docs/benchmarks.md);
- `DNC+UW intervals`, `DNC+CUW intervals`: the layers with
  `loop_intervals=True` (one loop over the equal write intervals, so one
  access in the program; docs/guides/memory.md), not in the default
  set;
- `no memory`: what is left of the regular-writing cell without memory:
  the controller fed the read vectors' width too (`[x_t, r_t]`, 11 + 16
  inputs) and the output projection `W_y [o_t, r_t]` (a `Dense` of 11 on
  the controller's outputs and the read vector, 116 inputs). The layers
  can run below it: between writes they hold `r`, and an LSTM
  controller's gates for it are computed once per stretch;

with an LSTM controller of 100 units, 4 memory slots, word size 16, one read
and one write head, batch 64, 11 input and 11 output features (a regression
on every step), sequence lengths T = 50 and 100 (UW interval
floor(T / 5), every step governed by the schedule), with XLA
(`jit_compile=True`) and without, in one process. The models of one (T, XLA)
setting are timed interleaved (one step of each, round after round) and the
median is reported with the ratios to `LSTM` and to the regular-writing cell,
and each model's first step (wall time: tracing and, under XLA, compilation).

Each model has one output layer, as the zoo builds them for the UW paper's
tasks (`keras_rda.lab.zoo.memory_models.memory_model`): the LSTM's
`Dense(11)` on `o_t`; the memory models' own `y_t = W_y [o_t, r_t]` with
`output_units=11`. (Records before `output_units` appeared in their
`sizes` gave the memory models a `y_t` of 100 and a `Dense(11)` after it,
one more layer than the LSTM.)

With `--instances N` every model is built N times apart and all copies are
timed interleaved: a row gives the median copy, and the record each copy's
time and its ratios to the same copy of the LSTM and of the regular cell,
which shows how far one compiled copy of a model is from another.

Run:
    python benchmarks/memory_speed.py [--repeats 7] [--warmup 2]
        [--lengths 50 100] [--jit both|on|off] [--clock cpu|wall]
        [--instances 1] [--json PATH]
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

import keras_rda  # noqa: E402
from keras_rda.memory import CachedUniformWriting  # noqa: E402
from keras_rda.memory import UniformWriting  # noqa: E402

UNITS = 100
SLOTS = 4
WORD = 16
BATCH = 64
FEATURES = 11
CACHE = 5

#: name -> (memory, schedule, layer or cell path, reference for the ratio)
MODELS = {
    "LSTM": (None, None, None, None),
    "DNC cell": ("dnc", "regular", "cell", None),
    "DNC+UW cell": ("dnc", "uniform", "cell", "DNC cell"),
    "DNC+UW": ("dnc", "uniform", "layer", "DNC cell"),
    "DNC+CUW": ("dnc", "cached_uniform", "layer", "DNC cell"),
    "NTM cell": ("ntm", "regular", "cell", None),
    "NTM+UW": ("ntm", "uniform", "layer", "NTM cell"),
    "no memory": ("none", None, None, "DNC cell"),
    "DNC+UW unrolled": ("dnc", "uniform", "layer", "DNC cell"),
    "DNC+UW intervals": ("dnc", "uniform", "layer", "DNC cell"),
    "DNC+CUW intervals": ("dnc", "cached_uniform", "layer", "DNC cell"),
}
#: The models every run times unless `--models` names others (the unrolled
#: layer answers a question about TensorFlow without XLA only).
DEFAULT_MODELS = [
    name for name in MODELS if not name.endswith(("unrolled", "intervals"))
]


def schedule_for(name, length):
    if name == "uniform":
        return UniformWriting(sequence_length=length)
    if name == "cached_uniform":
        return CachedUniformWriting(CACHE)
    return name


def build(name, length, jit):
    memory, schedule, path, _ = MODELS[name]
    controller = keras.layers.LSTMCell(UNITS)
    if memory == "none":
        return _compiled(no_memory(controller, length), jit)
    if memory is None:
        layers = [
            keras.layers.RNN(controller, return_sequences=True),
            keras.layers.Dense(FEATURES),
        ]
    else:
        args = (controller, SLOTS, WORD)
        kwargs = dict(
            write_schedule=schedule_for(schedule, length), output_units=FEATURES
        )
        unroll = name.endswith("unrolled")
        if path == "layer":
            layer_class = keras_rda.DNC if memory == "dnc" else keras_rda.NTM
            recurrent = layer_class(
                *args,
                return_sequences=True,
                unroll=unroll,
                loop_intervals=name.endswith("intervals"),
                **kwargs,
            )
        else:
            cell_class = keras_rda.DNCCell if memory == "dnc" else keras_rda.NTMCell
            recurrent = keras.layers.RNN(
                cell_class(*args, **kwargs), return_sequences=True
            )
        layers = [recurrent]
    model = keras.Sequential([keras.Input((length, FEATURES))] + layers)
    return _compiled(model, jit)


def no_memory(controller, length):
    """The DNC without its memory: `[x_t, r_t]` in, `W_y [o_t, r_t]` out.

    Its inputs are `x_t` (11 features) and a stand-in for the read vector
    (16 more); the controller's outputs and that stand-in go through the
    output projection `W_y [o_t, r_t]` (`Dense(11)`), the model's output.
    """
    inputs = keras.Input((length, FEATURES + WORD))
    outputs = keras.layers.RNN(controller, return_sequences=True)(inputs)
    reads = inputs[..., FEATURES:]
    features = keras.layers.Concatenate()([outputs, reads])
    return keras.Model(inputs, keras.layers.Dense(FEATURES)(features))


def _compiled(model, jit):
    model.compile(keras.optimizers.Adam(1e-3, clipvalue=10.0), "mse", jit_compile=jit)
    return model


def compiles(name, jit):
    """Whether `name` is timed with this XLA setting: the cell's conditional
    path has no XLA gradient, and the unrolled layer is timed without XLA
    only."""
    return not (jit and (name == "DNC+UW cell" or name.endswith("unrolled")))


def time_models(models, x, y, repeats, clock, warmup=2):
    """Median seconds per training step (`harness.time_steps`, `warmup`
    untimed steps after the first) and the wall seconds of each model's
    first step (tracing and compilation included); `x` is widened with
    random stand-in read vectors for a model that takes them (`no
    memory`)."""
    rng = np.random.default_rng(1)
    inputs = {}
    first_step = {}
    for name, model in models.items():
        width = model.input_shape[-1] - x.shape[-1]
        extra = rng.random(x.shape[:2] + (width,), dtype=np.float32)
        inputs[name] = np.concatenate([x, extra], -1) if width else x
        start = time.perf_counter()
        model.train_on_batch(inputs[name], y)
        first_step[name] = time.perf_counter() - start
        # Printed as it comes: a compilation can outlast a device lease.
        print(f"{name}: first step {first_step[name]:.1f} s", flush=True)
    medians = harness.time_steps(models, inputs, y, warmup, repeats, clock=clock)
    return {name: float(seconds) for name, seconds in medians.items()}, first_step


def copy_label(name, index, instances):
    """The key of copy `index` of model `name` (the name itself for one)."""
    return name if instances == 1 else f"{name} #{index + 1}"


def speed_row(name, length, jit, medians, first_step, instances):
    """The record's row of model `name`: the median copy's time, its ratios
    to the LSTM's and the reference's median copies, the first copy's first
    step and, with several copies, each copy's time and its ratios to the
    same copy of the LSTM and of the reference.

    Args:
        medians: seconds per step of every copy, by `copy_label`.
        first_step: wall seconds of every copy's first step, by `copy_label`.
    """
    reference = MODELS[name][3]

    def copies(model):
        labels = [copy_label(model, k, instances) for k in range(instances)]
        return [medians[label] for label in labels if label in medians]

    def median(model):
        return statistics.median(copies(model)) if model and copies(model) else None

    seconds, lstm, ref = median(name), median("LSTM"), median(reference)
    row = {
        "length": length,
        "xla": jit,
        "model": name,
        "ms_per_step": seconds * 1e3,
        "first_step_s": first_step[copy_label(name, 0, instances)],
        "ratio_to_lstm": seconds / lstm if lstm else None,
        "reference": reference,
        "ratio_to_reference": seconds / ref if ref else None,
    }
    if instances > 1:
        row["instance_ms"] = [t * 1e3 for t in copies(name)]
        if lstm:
            row["instance_ratios_to_lstm"] = [
                a / b for a, b in zip(copies(name), copies("LSTM"))
            ]
        if ref:
            row["instance_ratios_to_reference"] = [
                a / b for a, b in zip(copies(name), copies(reference))
            ]
    return row


def _ratio_text(ratio):
    """A ratio for the printed table: blank where its reference was not
    timed (`--models` without the LSTM or the regular cell)."""
    return "" if ratio is None else f"{ratio:.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    harness.add_arguments(parser, repeats=7, warmup=2, clock="cpu")
    parser.add_argument(
        "--lengths", type=int, nargs="+", default=[50, 100], help="sequence lengths"
    )
    parser.add_argument(
        "--jit", choices=["both", "on", "off"], default="both", help="XLA settings"
    )
    parser.add_argument(
        "--models",
        nargs="+",
        default=DEFAULT_MODELS,
        choices=list(MODELS),
        help="models to time (default: all but the `unrolled` and `intervals` ones)",
    )
    parser.add_argument(
        "--instances",
        type=int,
        default=1,
        help="copies of each model, built apart and timed interleaved: a row "
        "gives the median copy, and the record each copy's time and its ratios "
        "to the same copy of the LSTM and of the reference (how far one "
        "compiled copy is from another)",
    )
    args = parser.parse_args(argv)
    if args.instances < 1:
        parser.error(f"--instances must be at least 1, got {args.instances}")

    run = harness.Run(argv)
    clock = harness.CLOCKS[args.clock]
    jits = {"both": [False, True], "on": [True], "off": [False]}[args.jit]
    rng = np.random.default_rng(0)
    rows = []
    for length in args.lengths:
        x = rng.random((BATCH, length, FEATURES), dtype=np.float32)
        y = rng.random((BATCH, length, FEATURES), dtype=np.float32)
        for jit in jits:
            names = [n for n in args.models if compiles(n, jit)]
            copies = {
                copy_label(name, k, args.instances): build(name, length, jit)
                for k in range(args.instances)
                for name in names
            }
            medians, first_step = time_models(
                copies, x, y, args.repeats, clock, args.warmup
            )
            for name in names:
                rows.append(
                    speed_row(name, length, jit, medians, first_step, args.instances)
                )
            keras.backend.clear_session()

    print(
        f"\nOne training step (forward + backward + Adam): LSTM controller "
        f"{UNITS}, {SLOTS} slots, word {WORD}, batch {BATCH}; median {args.clock} "
        f"time of {args.repeats} interleaved rounds; load average "
        f"{run.load_start:.1f} -> {harness.load_average():.1f} on "
        f"{os.cpu_count()} CPUs\n"
    )
    print(
        "| T | XLA | model | ms / step | / LSTM | / regular cell | first step (s) "
        "| copies / regular cell |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        copies = row.get("instance_ratios_to_reference")
        print(
            f"| {row['length']} | {'on' if row['xla'] else 'off'} | {row['model']} | "
            f"{row['ms_per_step']:.1f} | {_ratio_text(row['ratio_to_lstm'])} | "
            f"{_ratio_text(row['ratio_to_reference'])} | "
            f"{row['first_step_s']:.1f} | "
            f"{'' if not copies else f'{min(copies):.2f}-{max(copies):.2f}'} |"
        )
    if args.json:
        fields = {
            "kind": "memory_speed",
            "benchmark": "memory_speed",
            "backend": keras.backend.backend(),
            "clock": args.clock,
            "rounds": args.repeats,
            "warmup": args.warmup,
            "instances": args.instances,
            "seconds": time.time() - run.started,
            "sizes": {
                "units": UNITS,
                "memory_size": SLOTS,
                "word_size": WORD,
                "batch": BATCH,
                "features": FEATURES,
                "cache_size": CACHE,
                "output_units": FEATURES,
            },
            "rows": rows,
        }
        run.write(args.json, fields)
    return rows


if __name__ == "__main__":
    main()
