"""Training-step time of zoo models on a paper task, by length, batch and width.

Times one training step (`train_on_batch`: forward, backward, Adam with the
model's paper clip) of each zoo model on a batch of the task, interleaved
(`harness.interleaved`), for every `(seq len, batch, units)` of the grid,
each as a ratio to the first model of the same setting, with each model's
first step (tracing and, under XLA, compilation) beside it. The models are
built as `keras-rda compare` builds them (`ModelSpec.build(task, units=...)`,
`--model-arg` passed on), compiled with sparse cross-entropy on logits as
the classification tasks are, and `jit_compile` as `--jit`.

It answers how a step grows with the configuration (issue 79, point 4):

    # The DNC on UW copy: the step against the length (T = 2L + 1 steps).
    python benchmarks/zoo_step_speed.py --task uw-copy --models lstm dnc \
        dnc-uw --seq-lens 50 100 --batches 64 --units 100
    # WeiNet and fast weights against the LSTM on associative recall.
    python benchmarks/zoo_step_speed.py --task associative-recall \
        --models lstm fw-ln weinet weinet-rc --seq-lens 30 50 \
        --batches 32 128 --units 50 100
"""

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402


def build(task, name, units, model_args, jit):
    """Zoo model `name` for `task`, compiled as a comparison compiles it."""
    import keras

    from keras_rda.lab.zoo import get_model_spec

    spec = get_model_spec(name)
    model = spec.build(task, units=units, **model_args)
    model.compile(
        spec.optimizer(),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit,
    )
    return model


def model_argument(text):
    """`key=value` (the value read as JSON, else as a string)."""
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="uw-copy")
    parser.add_argument("--models", nargs="+", default=["lstm", "dnc"])
    parser.add_argument("--seq-lens", type=int, nargs="+", default=[50, 100])
    parser.add_argument("--batches", type=int, nargs="+", default=[64])
    parser.add_argument("--units", type=int, nargs="+", default=[100])
    parser.add_argument(
        "--model-arg",
        type=model_argument,
        action="append",
        default=[],
        help="key=value passed to every model's builder (JSON value)",
    )
    parser.add_argument("--jit", choices=["on", "off"], default="on")
    harness.add_arguments(parser, repeats=7, clock="cpu")
    args = parser.parse_args(argv)
    run = harness.Run(argv)

    import keras
    import numpy as np

    from keras_rda.lab.tasks import get_task_class

    jit = args.jit == "on"
    task_class = get_task_class(args.task)
    model_args = dict(args.model_arg)
    rows = []
    for length in args.seq_lens:
        task = task_class(**{task_class.seq_len_param: length})
        for batch in args.batches:
            x, y, weight = task.generate(batch, np.random.default_rng(0))[:3]
            for units in args.units:
                calls, first = {}, {}
                for name in args.models:
                    model = build(task, name, units, model_args, jit)
                    start = time.perf_counter()
                    model.train_on_batch(x, y, sample_weight=weight)
                    first[name] = time.perf_counter() - start

                    def step(model=model, x=x, y=y, weight=weight):
                        model.train_on_batch(x, y, sample_weight=weight)

                    calls[name] = step
                times = harness.interleaved(
                    calls, args.warmup, args.repeats, clock=harness.CLOCKS[args.clock]
                )
                reference = statistics.median(times[args.models[0]])
                for name, seconds in times.items():
                    median = statistics.median(seconds)
                    row = {
                        "seq_len": length,
                        "steps_per_sequence": int(x.shape[1]),
                        "batch": batch,
                        "units": units,
                        "model": name,
                        "ms": median * 1e3,
                        "ms_range": [min(seconds) * 1e3, max(seconds) * 1e3],
                        "ratio": median / reference,
                        "first_step_s": first[name],
                    }
                    rows.append(row)
                    print(
                        f"L {length:4d} (T {row['steps_per_sequence']}) B {batch:4d} "
                        f"H {units:4d} {name:10s} {median * 1e3:8.1f} ms "
                        f"{row['ratio']:6.2f}x {args.models[0]}, first step "
                        f"{first[name]:.1f} s",
                        flush=True,
                    )
                keras.backend.clear_session()
    if args.json:
        run.write(
            args.json,
            {
                "kind": "zoo_step_speed",
                "benchmark": "zoo_step_speed",
                "backend": keras.backend.backend(),
                "task": args.task,
                "model_args": model_args,
                "xla": jit,
                "clock": args.clock,
                "repeats": args.repeats,
                "reference": args.models[0],
                "rows": rows,
            },
        )
    return rows


if __name__ == "__main__":
    main()
