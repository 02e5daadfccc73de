"""The tables of the `benchmarks/` records (`keras-rda report`)."""

import json

import pytest

from keras_rda.lab.reporting import benchmark_tables
from keras_rda.lab.reporting import report
from tests.conftest import REPO_ROOT

RESULTS = REPO_ROOT / "results"


def _table(record):
    """The table of a benchmark record, by its kind."""
    return benchmark_tables.RENDERERS[record["kind"]](record)


def test_speed_record_renders_a_row_per_length_and_xla(tmp_path):
    """A `benchmarks/rnn_speed.py --json` record: the LSTM's time in ms,
    every other model's ratio to it, a blank where a model did not run."""
    rows = [
        {"length": 100, "xla": False, "model": "LSTM", "ms_per_step": 250.4},
        {"length": 100, "xla": False, "model": "RDA layer", "ms_per_step": 300.0},
        {"length": 100, "xla": True, "model": "LSTM", "ms_per_step": 200.0},
        {"length": 100, "xla": True, "model": "RDA layer", "ms_per_step": 150.0},
        {"length": 100, "xla": True, "model": "GRU", "ms_per_step": 180.0},
    ]
    lstm = {
        (r["length"], r["xla"]): r["ms_per_step"] for r in rows if r["model"] == "LSTM"
    }
    for r in rows:
        r["ratio_to_lstm"] = r["ms_per_step"] / lstm[(r["length"], r["xla"])]
    record = {
        "kind": "rnn_speed",
        "commands": [{"argv": ["python", "s.py", "--json", "x.json"], "env": {}}],
        "backend": "jax",
        "versions": {"jax": "0.1", "keras": "3.0"},
        "settings": {
            "units": 8,
            "batch_size": 4,
            "input_dim": 2,
            "repeats": 3,
            "clock": "cpu",
            "reference": "LSTM",
        },
        "rows": rows,
        "memory": {"length": 10, "models": {"LSTM": {"step_increase_mib": 12.4}}},
    }
    report.write_json(tmp_path / "benchmarks" / "s.json", record)
    text = "<!-- keras-rda report: benchmarks/s -->\n<!-- /keras-rda report -->\n"
    new, _ = report.rebuild_tables(text, tmp_path)
    assert "jax 0.1, keras 3.0; 8 units, batch 4, input dim 2, median cpu time" in new
    assert "| T | XLA | LSTM | RDA layer | GRU |" in new
    assert "| 100 | off | 1.00 (250 ms) | 1.20 |  |" in new
    assert "| 100 | on | 1.00 (200 ms) | 0.75 | 0.90 |" in new
    assert "| LSTM | 12 |" in new
    assert "`python s.py --json results/benchmarks/s.json`" in new
    assert "every step" not in new
    # `--return-sequences`: the header says the loss reads every step.
    record["settings"]["return_sequences"] = True
    report.write_json(tmp_path / "benchmarks" / "s.json", record)
    new, _ = report.rebuild_tables(text, tmp_path)
    assert "input dim 2, loss on every step, median cpu time" in new


def _tensorflow_memory_speed_record(rows, **fields):
    """A `memory_speed.py` record of `rows` (8 rounds of the wall clock, the
    benchmark's sizes), with `fields` added."""
    sizes = {
        "units": 100,
        "memory_size": 4,
        "word_size": 16,
        "batch": 64,
        "output_units": 11,
    }
    return {
        "kind": "memory_speed",
        "benchmark": "memory_speed",
        "backend": "tensorflow",
        "versions": {"tensorflow": "2.0", "keras": "3.0"},
        "sizes": sizes,
        "clock": "wall",
        "rounds": 8,
        "instances": 1,
        "rows": rows,
        **fields,
    }


def test_memory_speed_record_gives_ratios_to_lstm_and_to_the_reference():
    """`memory_speed.py` rows carry the regular-writing model they replace:
    the cell shows both ratios."""
    rows = [
        {"length": 50, "xla": True, "model": "LSTM", "ms_per_step": 20.0},
        {"length": 50, "xla": True, "model": "DNC cell", "ms_per_step": 40.0},
        {"length": 50, "xla": True, "model": "DNC+UW", "ms_per_step": 24.0},
    ]
    for row in rows:
        row["ratio_to_lstm"] = row["ms_per_step"] / 20.0
        row["reference"] = "DNC cell" if row["model"] == "DNC+UW" else None
        row["ratio_to_reference"] = 24.0 / 40.0 if row["reference"] else None
    record = _tensorflow_memory_speed_record(
        rows,
        machine={"usable_cores": 16, "accelerators": ["cuda:0 (H100)"]},
        clock="cpu",
    )
    text = _table(record)
    assert text.startswith("cuda:0 (H100); tensorflow 2.0, keras 3.0; LSTM controller")
    assert (
        "100 units, 4 slots of 16, batch 64, memory models' own y_t of 11 as "
        "output, median cpu time of 8" in text
    )
    assert "| T | XLA | LSTM | DNC cell | DNC+UW |" in text
    assert "| 50 | on | 1.00 (20 ms) | 2.00 | 1.20 (0.60) |" in text


def test_memory_speed_record_with_first_steps_gives_their_table():
    """Each model's first step (compilation included): its seconds in a
    table of their own, after the ratios."""
    rows = [
        {"length": 50, "xla": True, "model": "LSTM", "ms_per_step": 5.0},
        {"length": 50, "xla": True, "model": "DNC+UW", "ms_per_step": 7.0},
    ]
    for row, first in zip(rows, (3.49, 239.62)):
        row["ratio_to_lstm"] = row["ms_per_step"] / 5.0
        row["reference"] = None
        row["ratio_to_reference"] = None
        row["first_step_s"] = first
    record = _tensorflow_memory_speed_record(
        rows, machine={"usable_cores": 2}, rounds=20
    )
    text = _table(record)
    ratios, firsts = text.split("first training step")
    assert "| 50 | on | 1.00 (5.0 ms) | 1.40 |" in ratios
    assert "batch 64, memory models' own y_t of 11 as output, median wall" in ratios
    assert firsts.splitlines()[-1] == "| 50 | on | 3.5 | 239.6 |"


def _copies_row(model, instance_ms, lstm_ms, xla=False, **fields):
    """A `memory_speed.py --instances 3` row at T = 50: the median copy's
    time and its ratio to `lstm_ms`; `fields` add the copies' ratios and
    the reference (none by default)."""
    row = {
        "length": 50,
        "xla": xla,
        "model": model,
        "instance_ms": instance_ms,
        "reference": None,
        "ratio_to_reference": None,
        **fields,
    }
    row["ms_per_step"] = sorted(instance_ms)[1]
    row["ratio_to_lstm"] = row["ms_per_step"] / lstm_ms
    return row


def _copies(record):
    """`(ratios, copies)`: a `--instances` record's table of ratios and its
    table of the copies' spread."""
    ratios, rest = _table(record).split("copies", 1)
    return ratios, rest.split("\n\nEach model's first training step")[0]


def test_memory_speed_record_with_copies_gives_their_spread():
    """`memory_speed.py --instances`: a table of each copy's lowest and
    highest ratio to the same copy of the LSTM and of the reference."""
    rows = [
        _copies_row("LSTM", [21.0, 19.6, 20.0], 20.0),
        _copies_row(
            "DNC cell",
            [80.0, 90.0, 84.0],
            20.0,
            instance_ratios_to_lstm=[4.0, 4.5, 4.2],
        ),
        _copies_row(
            "DNC+UW",
            [20.0, 22.0, 26.0],
            20.0,
            instance_ratios_to_lstm=[1.0, 1.1, 1.3],
            instance_ratios_to_reference=[0.25, 0.2444, 0.3095],
            reference="DNC cell",
            ratio_to_reference=22.0 / 84.0,
        ),
    ]
    record = _tensorflow_memory_speed_record(
        rows, machine={"usable_cores": 2}, instances=3
    )
    ratios, copies = _copies(record)
    assert "| 50 | off | 1.00 (20 ms) | 4.20 | 1.10 (0.26) |" in ratios
    assert "Each of the 3" in ratios
    assert copies.splitlines()[-1] == (
        "| 50 | off | 20-21 ms | 4.00-4.50 | 1.00-1.30 (0.24-0.31) |"
    )


def test_steps_under_ten_milliseconds_keep_a_decimal():
    """A GPU's steps of a few milliseconds: 4.0 and 5.2 ms, not 4 and 5
    (and a copies span of 5.1-5.2 ms, not 5-5); 20 ms stays whole (above)."""
    rows = [
        _copies_row("LSTM", [5.16, 5.19, 5.14], 5.16, xla=True),
        _copies_row(
            "DNC+UW",
            [6.0, 6.3, 6.6],
            5.16,
            xla=True,
            instance_ratios_to_lstm=[1.16, 1.21, 1.28],
        ),
    ]
    record = _tensorflow_memory_speed_record(rows, instances=3)
    ratios, copies = _copies(record)
    assert "| 50 | on | 1.00 (5.2 ms) | 1.22 |" in ratios
    assert copies.splitlines()[-1] == "| 50 | on | 5.1-5.2 ms | 1.16-1.28 |"


def _cost_row(model, flops, nbytes, transcendentals, temp=None):
    row = {
        "model": model,
        "flops": flops,
        "bytes accessed": nbytes,
        "transcendentals": transcendentals,
    }
    if temp is not None:
        row["temp_mib"] = temp
    return row


def test_cost_record_gives_each_count_with_its_ratio_to_the_lstm():
    settings = {"units": 250, "batch_size": 100, "input_dim": 2, "memory_length": 1000}
    record = {
        "kind": "rnn_cost",
        "benchmark": "rnn_cost",
        "settings": settings,
        "rows": [
            _cost_row("LSTM", 200e6, 20e6, 100e3, temp=1000.0),
            _cost_row("RDA layer", 150e6, 30e6, 180e3, temp=1500.0),
        ],
    }
    text = _table(record)
    assert "working memory at T = 1000, MiB" in text
    assert (
        "| LSTM | 200.0 (1.00) | 20.0 (1.00) | 100.0 (1.00) | 1000.0 (1.00) |" in text
    )
    assert (
        "| RDA layer | 150.0 (0.75) | 30.0 (1.50) | 180.0 (1.80) | 1500.0 (1.50) |"
        in text
    )

    # A record without the memory column (or one model without it) has none.
    record["settings"] = {**settings, "memory_length": 0}
    text = _table(record)
    assert "working memory" not in text
    assert "| RDA layer | 150.0 (0.75) | 30.0 (1.50) | 180.0 (1.80) |" in text


def test_profile_record_gives_the_loop_share_and_the_top_kernels():
    def result(model, kernels, by_type=None):
        total = sum(ms for _, ms, _ in kernels)
        return {
            "model": model,
            "ms_per_step_traced": 2 * total,
            "kernels_ms_per_step": total,
            "loop_kernels_ms_per_step": sum(ms for _, ms, n in kernels if n >= 10),
            "kernels": [
                {"kernel": k, "ms_per_step": ms, "launches_per_step": n}
                for k, ms, n in kernels
            ],
            "by_type": by_type,
        }

    record = {
        "kind": "rnn_profile",
        "benchmark": "rnn_profile",
        "backend": "tensorflow",
        "versions": {"tensorflow": "2.0", "keras": "3.0"},
        "settings": {
            "units": 8,
            "batch_size": 4,
            "input_dim": 2,
            "length": 10,
            "repeats": 3,
        },
        "results": [
            result(
                "RDA layer",
                [("MatMul", 30.0, 10), ("Mul", 20.0, 20), ("dR", 10.0, 1)],
                by_type=[{"type": "MatMul", "ms_per_step": 40.0}],
            )
        ],
    }
    text = benchmark_tables.profile_record_markdown(record, top=2)
    assert "| model | all ops | in the time loop | top ops | by op type |" in text
    assert (
        "| RDA layer | 60 ms | 83% | `MatMul` 30 (x10), `Mul` 20 (x20) | MatMul 40 |"
        in text
    )


def _parallel_speed_record(backend, environment, rows):
    """A `parallel_rda_speed.py --json` record of `rows` on one backend."""
    return {
        "kind": "parallel_rda_speed",
        "benchmark": "parallel_rda_speed",
        "environments": {backend: environment},
        "settings": {
            "units": 8,
            "batch_size": 4,
            "input_dim": 2,
            "repeats": 7,
            "long_repeats": 3,
            "clock": "wall",
        },
        "rows": rows,
    }


def test_parallel_speed_record_gives_times_and_time_ratios_per_row():
    """A `parallel_rda_speed.py --json` record: a row per (backend, T, XLA),
    each layer's time with that time over the LSTM's of that row (the one
    convention of every page: lower is faster)."""
    rows = [
        {"backend": "jax", "length": 1000, "xla": True, "model": m, "ms_per_step": t}
        for m, t in (("LSTM", 50.0), ("RNN(RDACell)", 40.0), ("ParallelRDA", 5.0))
    ]
    rows.append(
        {
            "backend": "jax",
            "length": 10000,
            "xla": True,
            "model": "LSTM",
            "ms_per_step": 400.0,
        }
    )
    for row in rows:
        lstm = next(
            r for r in rows if r["model"] == "LSTM" and r["length"] == row["length"]
        )
        row["speedup_vs_LSTM"] = lstm["ms_per_step"] / row["ms_per_step"]
    environment = {
        "versions": {"jax": "0.1", "keras": "3.0"},
        "machine": {"accelerators": ["cuda:0 (GPU)"]},
    }
    text = _table(_parallel_speed_record("jax", environment, rows))
    assert text.startswith("cuda:0 (GPU); jax 0.1, keras 3.0; 8 units, batch 4")
    assert "| backend | T | XLA | `LSTM` | `RNN(RDACell)` | `ParallelRDA` |" in text
    assert (
        "| jax | 1,000 | on | 50.0 ms (1.00x) | 40.0 ms (0.80x) | 5.0 ms (0.10x) |"
        in text
    )
    assert "| jax | 10,000 | on | 400.0 ms (1.00x) |  |  |" in text


def test_parallel_speed_record_gives_first_steps_and_failures():
    """The rows carry each layer's first step (wall seconds, compilation
    included): a second table; a layer whose first step failed is marked,
    not dropped."""
    rows = [
        {
            "backend": "tensorflow",
            "length": 100,
            "xla": True,
            "model": model,
            "ms_per_step": ms,
            "speedup_vs_LSTM": 20.0 / ms,
            "first_step_s": first,
        }
        for model, ms, first in (("LSTM", 20.0, 1.31), ("ParallelRDA", 40.0, 61.0))
    ]
    rows.append(
        {
            "backend": "tensorflow",
            "length": 100,
            "xla": True,
            "model": "ParallelRDA(associative)",
            "error": "InvalidArgumentError: ...",
        }
    )
    environment = {
        "versions": {"tensorflow": "2.0", "keras": "3.0"},
        "machine": {"cpu_count": 2, "accelerators": []},
    }
    text = _table(_parallel_speed_record("tensorflow", environment, rows))
    times, firsts = text.split("first training step")
    assert "| tensorflow | 100 | on | 20.0 ms (1.00x) | 40.0 ms (2.00x) | fails |" in (
        times
    )
    assert "| tensorflow | 100 | on | 1.3 | 61.0 |  |" in firsts


def _records_with_a_renderer():
    """The committed benchmark records of a kind `benchmark_tables` renders
    (table records, `columns` and `rows`, are rendered as they are)."""
    for path in sorted((RESULTS / "benchmarks").glob("**/*.json")):
        data = json.loads(path.read_text())
        if data["kind"] in benchmark_tables.RENDERERS:
            yield str(path.relative_to(RESULTS).with_suffix("")), data


RECORDS = dict(_records_with_a_renderer())


def test_the_committed_records_include_every_kind():
    kinds = {data["kind"] for data in RECORDS.values()}
    assert kinds >= {
        "rnn_speed",
        "memory_speed",
        "rnn_cost",
        "rnn_profile",
        "parallel_rda_speed",
    }


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_committed_benchmark_record_renders(name):
    """The committed records still match what the renderers read (a field
    renamed in a script would otherwise surface only in `keras-rda report`)."""
    text = report.render(RECORDS[name], name)
    assert text.count("\n|") >= 3, text


def test_zoo_step_record_gives_a_row_per_size_and_model():
    """A `zoo_step_speed.py` record: each row's time and its ratio to the
    reference model at the same sizes."""
    rows = [
        {
            "seq_len": 50,
            "steps_per_sequence": 101,
            "batch": 64,
            "units": 100,
            "model": model,
            "ms": ms,
            "ratio": ms / 80.0,
        }
        for model, ms in (("lstm", 80.0), ("dnc", 200.0))
    ]
    record = {
        "kind": "zoo_step_speed",
        "benchmark": "zoo_step_speed",
        "backend": "tensorflow",
        "task": "uw-copy",
        "xla": True,
        "clock": "cpu",
        "repeats": 7,
        "reference": "lstm",
        "versions": {"tensorflow": "2.0", "keras": "3.0"},
        "machine": {"usable_cores": 2, "accelerators": []},
        "rows": rows,
    }
    text = _table(record)
    assert "task `uw-copy`, XLA on" in text
    assert "| 50 | 101 | 64 | 100 | `dnc` | 200 | 2.50 |" in text
    assert "| 50 | 101 | 64 | 100 | `lstm` | 80 | 1.00 |" in text


def test_compare_speed_record_gives_each_models_speed_at_both_commits():
    """A `compare_speed.py` record: steps per second at the earlier and the
    later commit, and the later over the earlier."""
    record = {
        "kind": "compare_speed",
        "benchmark": "compare_speed",
        "backend": "tensorflow",
        "task": "addition",
        "scale": "paper",
        "steps": 10,
        "xla": True,
        "repeats": 7,
        "commits": {"before": "1615e95aaaa", "after": "abb5517bbbb"},
        "versions": {"tensorflow": "2.0", "keras": "3.0"},
        "machine": {"usable_cores": 2, "accelerators": []},
        "rows": [
            {
                "model": "rda",
                "before_steps_per_s": 0.25,
                "after_steps_per_s": 0.5,
                "speedup": 2.0,
            }
        ],
    }
    text = _table(record)
    assert "`keras-rda compare addition --scale paper --steps 10 --jit`" in text
    assert "| model | steps/s at `1615e95` | steps/s at `abb5517` | speed-up |" in text
    assert text.splitlines()[-1] == "| `rda` | 0.25 | 0.5 | 2.00x |"
