"""Training speed on very long sequences: feed-forward attention vs RNNs.

One training step = forward, backward and an Adam update on one batch of the
addition problem (`ffa-addition`, lengths in [T0, 1.1 T0], padded to 1.1 T0
and masked), for the zoo models `ffattn` (Raffel & Ellis: per-step Dense +
attention, D = 100), `ffmean` (the unweighted mean), `rda-attn`
(`keras_rda.RDA` + attention) and `lstm-attn` (`keras.layers.LSTM` +
attention, the reference for `rda-attn`). Models are timed interleaved in
one process, so that machine load affects them alike; the table reports
sequences per second (batch / median step time), the ratio to `lstm-attn`
at the same T0, and the process's peak resident memory after each T0
(feed-forward attention is linear in T: nothing `[batch, T, T]` is formed).

    python benchmarks/attention_speed.py                    # T0 in {1000, 10000}
    python benchmarks/attention_speed.py --quick            # a smoke run
    python benchmarks/attention_speed.py --models ffattn --lengths 10000
    python benchmarks/attention_speed.py ... --json PATH [--append]

`--json` writes the table as a table record for `keras-rda report`;
`--append` adds the rows to the record at PATH (a table measured by several
commands, e.g. the RNNs at T0 = 10,000 with a smaller batch).
"""

import argparse
import os
import resource

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import harness  # noqa: E402
import numpy as np  # noqa: E402

from keras_rda.lab.tasks import get_task  # noqa: E402
from keras_rda.lab.zoo import get_model_spec  # noqa: E402

REFERENCE = "lstm-attn"


def peak_memory_gib():
    """Peak resident memory of this process so far (Linux: KiB units)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _number(value):
    """Three significant digits, without an exponent: 1,760, 181, 5.51."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def build(name, task, units, jit):
    spec = get_model_spec(name)
    model = spec.build(task, units=units)
    model.compile(spec.optimizer(), task.loss, jit_compile=jit)
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--models", nargs="+", default=["ffattn", "ffmean", "rda-attn", REFERENCE]
    )
    parser.add_argument("--lengths", nargs="+", type=int, default=[1000, 10000])
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=100)
    harness.add_arguments(
        parser, repeats=7, warmup=1, json_help="write the table record"
    )
    parser.add_argument("--jit", action="store_true", help="compile with XLA")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    parser.add_argument(
        "--append", action="store_true", help="add the rows to the record at --json"
    )
    args = parser.parse_args(argv)
    run = harness.Run(argv)
    if args.quick:
        args.lengths, args.batch_size, args.repeats = [100], 8, 1

    rows = []
    for min_length in sorted(args.lengths):
        task = get_task("ffa-addition", min_length=min_length)
        batch = task.generate(args.batch_size, np.random.default_rng(0))
        models = {name: build(name, task, args.units, args.jit) for name in args.models}
        x, y, w = batch
        seconds = harness.time_steps(
            models, x, y, args.warmup, args.repeats, sample_weight=w
        )
        memory = peak_memory_gib()
        for name in args.models:
            ratio = (
                f"{seconds[REFERENCE] / seconds[name]:.1f}x"
                if REFERENCE in seconds
                else "-"
            )
            rows.append(
                (
                    name,
                    min_length,
                    batch[0].shape[1],
                    args.batch_size,
                    f"{seconds[name]:.3g}",
                    _number(args.batch_size / seconds[name]),
                    ratio,
                    f"{memory:.1f}",
                )
            )
            print(rows[-1], flush=True)
    print()
    print(
        f"batch {args.batch_size}, {args.units} units, median of {args.repeats} "
        f"steps after {args.warmup} warm-up, jit_compile={args.jit}, "
        f"{os.cpu_count()} CPUs"
    )
    columns = [
        "model",
        "T0",
        "padded T",
        "batch",
        "s / step",
        "sequences / s",
        f"speed vs {REFERENCE}",
        "peak RSS GiB (cumulative)",
    ]
    print("| " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * (len(columns) - 1))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    if args.json:
        table = {
            "benchmark": "attention_speed",
            "columns": columns,
            "rows": [[str(v) for v in row] for row in rows],
            "notes": [
                f"One training step (forward, backward, Adam), {args.units} "
                "units, the median of the steps each command's `--repeats` "
                f"names, jit_compile={args.jit}, the models of one command "
                "and T0 interleaved; the speed ratio is to "
                f"{REFERENCE} of the same command and T0. The peak RSS is the "
                "process's so far, so it covers every model of the command up "
                "to that T0."
            ],
        }
        path = run.write_table(args.json, table, append=args.append)
        print(f"record: {path}")


if __name__ == "__main__":
    main()
