"""Plots BPC curves of `keras-rda enwik8` runs from their history.jsonl.

    python benchmarks/enwik8_plot.py runs/enwik8-lstm-small runs/enwik8-rda-small \
        --labels LSTM RDA --out docs/enwik8_sanity.png \
        --title "1 MB enwik6, CPU sanity run (small preset)"
"""

import argparse
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_history(run_dir):
    """{metric: [(step, value), ...]}, the last value logged for each step."""
    series = {}
    for line in (pathlib.Path(run_dir) / "history.jsonl").read_text().splitlines():
        record = json.loads(line)
        step = record.pop("step")
        for name, value in record.items():
            series.setdefault(name, {})[step] = value  # a resumed run may repeat
    return {name: sorted(points.items()) for name, points in series.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--labels", nargs="+")
    parser.add_argument("--out", default="docs/enwik8_sanity.png")
    parser.add_argument("--title", default="enwik8")
    parser.add_argument("--smooth", type=int, default=10, help="train BPC window")
    args = parser.parse_args()
    labels = args.labels or [pathlib.Path(r).name for r in args.runs]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for run, label, color in zip(args.runs, labels, plt.cm.tab10.colors):
        history = read_history(run)
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
