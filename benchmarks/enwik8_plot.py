"""Plots BPC curves of `keras-rda enwik8` runs: from their run directories
(`history.jsonl`) or from an enwik8 record in `results/` (`--record`).

    python benchmarks/enwik8_plot.py runs/enwik8-lstm-small runs/enwik8-rda-small \
        --labels LSTM RDA --out docs/enwik8_sanity.png \
        --title "1 MB enwik6, CPU sanity run (small preset)"
    python benchmarks/enwik8_plot.py --record results/enwik8-small.json \
        --models lstm rda --out docs/enwik8_sanity.png
"""

import argparse
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_history(run_dir):
    """{metric: [(step, value), ...]} of a run directory's `history.jsonl`."""
    lines = (pathlib.Path(run_dir) / "history.jsonl").read_text().splitlines()
    return series_of([json.loads(line) for line in lines])


def series_of(history):
    """{metric: [(step, value), ...]}, the last value logged for each step."""
    series = {}
    for line in history:
        record = dict(line)
        step = record.pop("step")
        for name, value in record.items():
            series.setdefault(name, {})[step] = value  # a resumed run may repeat
    return {name: sorted(points.items()) for name, points in series.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", help="run directories (--out)")
    parser.add_argument(
        "--record", help="an enwik8 record (keras-rda enwik8 --results-dir)"
    )
    parser.add_argument(
        "--models", nargs="+", help="the record's runs to plot (default all)"
    )
    parser.add_argument("--labels", nargs="+")
    parser.add_argument("--out", default="docs/enwik8_sanity.png")
    parser.add_argument("--title", default="enwik8")
    parser.add_argument("--smooth", type=int, default=10, help="train BPC window")
    args = parser.parse_args()
    if args.record:
        runs = json.loads(pathlib.Path(args.record).read_text())["runs"]
        names = args.models or list(runs)
        histories = [series_of(runs[name]["history"]) for name in names]
    else:
        names = [pathlib.Path(r).name for r in args.runs]
        histories = [read_history(run) for run in args.runs]
    labels = args.labels or names
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for history, label, color in zip(histories, labels, plt.cm.tab10.colors):
        train = history.get("train/bpc", [])
        if train:
            steps, values = zip(*train)
            k = max(1, min(args.smooth, len(values)))
            smooth = [
                sum(values[max(0, i - k + 1) : i + 1])
                / len(values[max(0, i - k + 1) : i + 1])
                for i in range(len(values))
            ]
            ax.plot(steps, smooth, color=color, alpha=0.6, label=f"{label} train")
        valid = history.get("valid/bpc", [])
        if valid:
            steps, values = zip(*valid)
            ax.plot(steps, values, "o-", color=color, label=f"{label} validation")
    ax.set_xlabel("training step")
    ax.set_ylabel("bits per character")
    ax.set_title(args.title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=120)
    print(f"Wrote {args.out}")


if __name__ == "__main__":
    main()
