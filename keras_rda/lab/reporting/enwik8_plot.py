"""Bits-per-character curves of `keras-rda enwik8` runs, as a PNG.

From the runs' own directories (`history.jsonl`) or from an enwik8 record
in `results/` (`--record`):

    python -m keras_rda.lab.reporting.enwik8_plot \
        runs/enwik8-lstm-small runs/enwik8-rda-small \
        --labels LSTM RDA --out enwik8_small.png \
        --title "1 MB enwik6, CPU sanity run (small preset)"
    python -m keras_rda.lab.reporting.enwik8_plot \
        --record results/enwik8-small.json --models lstm rda --out enwik8_small.png
"""

import argparse
import json
import pathlib

from keras_rda.lab.reporting.report import merged_history
from keras_rda.lab.reporting.report import save_figure


def read_history(run_dir):
    """{metric: [(step, value), ...]} of a run directory's `history.jsonl`."""
    lines = (pathlib.Path(run_dir) / "history.jsonl").read_text().splitlines()
    return series_of([json.loads(line) for line in lines])


def series_of(history):
    """{metric: [(step, value), ...]}, the last value logged for each step."""
    series = {}
    for line in merged_history(history):  # a resumed run may repeat steps
        for name, value in line.items():
            if name != "step":
                series.setdefault(name, []).append((line["step"], value))
    return series


def plot_bpc(histories, labels, path, title="enwik8", smooth=10):
    """Draws each run's training BPC (a moving average over `smooth` logged
    steps) and validation BPC against the step into the PNG `path`, returned;
    `histories` are `series_of`'s, one per run, with one label each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for history, label, color in zip(histories, labels, plt.cm.tab10.colors):
        train = history.get("train/bpc", [])
        if train:
            steps, values = zip(*train)
            k = max(1, min(smooth, len(values)))
            windows = [values[max(0, i - k + 1) : i + 1] for i in range(len(values))]
            averages = [sum(w) / len(w) for w in windows]
            ax.plot(steps, averages, color=color, alpha=0.6, label=f"{label} train")
        valid = history.get("valid/bpc", [])
        if valid:
            steps, values = zip(*valid)
            ax.plot(steps, values, "o-", color=color, label=f"{label} validation")
    ax.set_xlabel("training step")
    ax.set_ylabel("bits per character")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", help="run directories (--out)")
    parser.add_argument(
        "--record", help="an enwik8 record (keras-rda enwik8 --results-dir)"
    )
    parser.add_argument(
        "--models", nargs="+", help="the record's runs to plot (default all)"
    )
    parser.add_argument("--labels", nargs="+")
    parser.add_argument("--out", default="enwik8_bpc.png", help="the PNG to write")
    parser.add_argument("--title", default="enwik8")
    parser.add_argument("--smooth", type=int, default=10, help="train BPC window")
    args = parser.parse_args(argv)
    if args.record:
        runs = json.loads(pathlib.Path(args.record).read_text())["runs"]
        names = args.models or list(runs)
        histories = [series_of(runs[name]["history"]) for name in names]
    else:
        names = [pathlib.Path(r).name for r in args.runs]
        histories = [read_history(run) for run in args.runs]
    path = plot_bpc(histories, args.labels or names, args.out, args.title, args.smooth)
    print(f"Wrote {path}")


if __name__ == "__main__":
    main()
