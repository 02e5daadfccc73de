"""Markdown tables from `rnn_speed.py --json` records (for the README).

python benchmarks/rnn_speed_table.py results/benchmarks/*.json
"""

import argparse
import json


def table(record):
    """One record as a markdown table: a row per (T, XLA), a column per model."""
    settings = record["settings"]
    models = list(dict.fromkeys(row["model"] for row in record["rows"]))
    keys = list(dict.fromkeys((row["length"], row["xla"]) for row in record["rows"]))
    cell = {(r["length"], r["xla"], r["model"]): r for r in record["rows"]}
    lines = [
        f"`{record['command']}` ({record['backend']} "
        f"{record['versions'].get(record['backend'], '')}, keras "
        f"{record['versions']['keras']}; {settings['units']} units, batch "
        f"{settings['batch_size']}, input dim {settings['input_dim']}):",
        "",
        "| T | XLA | " + " | ".join(models) + " |",
        "|---|---|" + "---:|" * len(models),
    ]
    for length, xla in keys:
        entries = []
        for model in models:
            row = cell.get((length, xla, model))
            if row is None:
                entries.append("")
            elif model == "LSTM":
                entries.append(f"1.00 ({row['ms_per_step']:.0f} ms)")
            else:
                entries.append(f"{row['ratio_to_lstm']:.2f}")
        lines.append(
            f"| {length} | {'on' if xla else 'off'} | " + " | ".join(entries) + " |"
        )
    memory = record.get("memory")
    if memory:
        lines += [
            "",
            f"Peak memory of one training step at T = {memory['length']} "
            "(increase of the process's peak RSS over its RSS before the step):",
            "",
            "| model | MiB |",
            "|---|---:|",
        ]
        for name, m in memory["models"].items():
            lines.append(f"| {name} | {m['step_increase_mib']:.0f} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", nargs="+")
    args = parser.parse_args(argv)
    for path in args.records:
        with open(path) as f:
            print(table(json.load(f)) + "\n")


if __name__ == "__main__":
    main()
