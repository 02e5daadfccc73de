"""One small speed table, gathered from benchmark records already in results/.

The README's speed table: the RDA and RWA layers, `ParallelRDA` and a DNC
with Uniform Writing against Keras's LSTM, on a CPU and on a GPU. Nothing is
timed here: every figure is a ratio of two times of one benchmark record.

Run from a checkout:

    python -m keras_rda.lab.reporting.speed_summary    # print the table
    python -m keras_rda.lab.reporting.speed_summary \
        --json results/benchmarks/speed_summary.json
"""

import argparse
import json
import pathlib

from keras_rda.lab.reporting import provenance
from keras_rda.lab.reporting.report import write_table_record

RESULTS = provenance.PACKAGE_ROOT / "results"

COMMAND = provenance.command(
    "python -m keras_rda.lab.reporting.speed_summary "
    "--json results/benchmarks/speed_summary.json".split()
)

#: (unit, sizes, reference model, CPU source, GPU source); a source is
#: (record under results/benchmarks, length, XLA, model name in the record).
ROWS = [
    (
        "`RDA` layer",
        "250 units, batch 100, T = 1,000",
        "LSTM",
        ("tensorflow_cpu_training_step", 1000, True, "RDA layer"),
        ("h100/jax_rnn_speed", 1000, True, "RDA layer"),
    ),
    (
        "`RWA` layer",
        "250 units, batch 100, T = 1,000",
        "LSTM",
        ("tensorflow_cpu_training_step", 1000, True, "RWA layer"),
        ("h100/jax_rnn_speed", 1000, True, "RWA layer"),
    ),
    (
        "`ParallelRDA`",
        "128 units, batch 16, T = 1,000",
        "LSTM",
        ("tensorflow_parallel_rda_blocked", 1000, True, "ParallelRDA(chunk=8)"),
        ("h200/jax_parallel_rda_blocked", 1000, True, "ParallelRDA(chunk=8)"),
    ),
    (
        "`ParallelRDA`",
        "128 units, batch 16, T = 10,000",
        "LSTM",
        ("tensorflow_parallel_rda_blocked", 10000, True, "ParallelRDA(chunk=8)"),
        ("h200/jax_parallel_rda_blocked_t10000", 10000, True, "ParallelRDA(chunk=8)"),
    ),
    (
        "`DNC` + `UniformWriting`",
        "LSTM-100 controller, 4 slots, batch 64, T = 100",
        "LSTM",
        ("tensorflow_memory_speed", 100, True, "DNC+UW"),
        ("h200/jax_memory_speed_default_t100", 100, True, "DNC+UW"),
    ),
]


def step_ms(record, length, xla, model):
    """A model's time per training step in a speed record, in ms."""
    for row in record["rows"]:
        if (row["length"], bool(row["xla"]), row["model"]) == (length, xla, model):
            return row["ms_per_step"]
    raise KeyError(f"no row ({length}, xla={xla}, {model!r}) in the record")


BACKENDS = {"tensorflow": "TensorFlow", "jax": "JAX", "torch": "PyTorch"}


def environment(record):
    """`(backend, machine)` a speed record ran on (a `parallel_rda_speed`
    record's: its one environment's)."""
    if record["kind"] == "parallel_rda_speed":
        backend, environment = next(iter(record["environments"].items()))
        return backend, environment["machine"]
    return record["backend"], record["machine"]


def device(record):
    """`"N-core CPU"` or the accelerator's short name, from a record."""
    _, machine = environment(record)
    if machine["accelerators"]:
        name = machine["accelerators"][0]
        return name.split("NVIDIA ")[-1].split(")")[0].split()[0]
    return f"{machine['usable_cores']}-core CPU"


def time_ratio_cell(results_dir, source, reference):
    """`(ratio text, where, record name)`: the model's time over the
    reference's in one record."""
    name, length, xla, model = source
    record = json.loads((results_dir / "benchmarks" / f"{name}.json").read_text())
    ratio = step_ms(record, length, xla, model) / step_ms(
        record, length, xla, reference
    )
    backend = BACKENDS[environment(record)[0]]
    where = f"{device(record)}, {backend}, XLA {'on' if xla else 'off'}"
    return f"{ratio:.2f}x", where, name


def rounds(record):
    """How many interleaved timed rounds the record's medians are of."""
    if record["kind"] == "memory_speed":
        return record["rounds"]
    return record["settings"]["repeats"]


def summary_table(results_dir=RESULTS):
    """`{"columns", "align", "rows", "notes", "sources"}` from the records."""
    results_dir = pathlib.Path(results_dir)
    cells, sources = [], []
    for unit, sizes, reference, *measured in ROWS:
        row = [unit, sizes]
        for source in measured:
            ratio, where, name = time_ratio_cell(results_dir, source, reference)
            row.append((ratio, where))
            if f"results/benchmarks/{name}.json" not in sources:
                sources.append(f"results/benchmarks/{name}.json")
        cells.append(row)
    columns = ["unit", "sizes"]
    for index, title in ((2, "CPU"), (3, "GPU")):
        places = {row[index][1] for row in cells}
        uniform = len(places) == 1
        # One device for the whole column: named once, in its title.
        columns.append(places.pop() if uniform else title)
        for row in cells:
            ratio, where = row[index]
            row[index] = ratio if uniform else f"{ratio} ({where})"
    return {
        "benchmark": "speed_summary",
        "columns": columns,
        "align": ["---", "---", "---:", "---:"],
        "rows": cells,
        "notes": [
            "Time of one training step (forward, backward, Adam) over the time "
            "of `keras.layers.LSTM` of the same size timed in the same run "
            "(lower is faster: 0.50x trains in half the LSTM's time). For the "
            "DNC the reference is its LSTM controller alone.",
            "Gathered from the records "
            + ", ".join(
                f"`{s}` ({rounds_of_source(results_dir, s)} rounds)" for s in sources
            )
            + " (each one benchmark run, the median of its interleaved timed "
            "rounds; their commands are in the records).",
        ],
        "sources": sources,
    }


def rounds_of_source(results_dir, source):
    """`rounds` of the record at `source` (`results/benchmarks/NAME.json`)."""
    path = pathlib.Path(results_dir) / source.removeprefix("results/")
    return rounds(json.loads(path.read_text()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results-dir", default=str(RESULTS))
    parser.add_argument("--json", metavar="PATH", help="write a table record here")
    args = parser.parse_args(argv)
    table = summary_table(args.results_dir)
    print("| " + " | ".join(table["columns"]) + " |")
    for row in table["rows"]:
        print("| " + " | ".join(row) + " |")
    if args.json:
        write_table_record(args.json, table, COMMAND, kind="timing")


if __name__ == "__main__":
    main()
