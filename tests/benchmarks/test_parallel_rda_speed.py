"""`benchmarks/parallel_rda_speed.py`: what it times by default, its table."""

import argparse
import inspect

import pytest

import keras_rda
from tests.benchmarks.conftest import benchmark_script


@pytest.fixture(scope="module")
def parallel_rda_speed():
    with benchmark_script("parallel_rda_speed") as module:
        yield module


def _row(model, ms, **speedups):
    row = {
        "backend": "torch",
        "length": 10000,
        "xla": False,
        "model": model,
        "ms_per_step": ms,
        "first_step_s": 0.1,
    }
    row.update({f"speedup_vs_{k}": v for k, v in speedups.items()})
    return row


def test_a_skipped_reference_leaves_its_column_empty(parallel_rda_speed, capsys):
    # `--skip 'RNN(RDACell)'`: no row has a speed-up over it.
    rows = [
        _row("LSTM", 60.0, LSTM=1.0),
        _row("ParallelRDA(chunk=8)", 40.0, LSTM=1.5),
    ]
    settings = argparse.Namespace(units=128, batch_size=16, input_dim=2, clock="wall")
    parallel_rda_speed.print_table(rows, settings)
    lines = [line for line in capsys.readouterr().out.splitlines() if "torch" in line]
    assert lines[1].split("|")[5:8] == [" 40.0 ", " 1.50x ", "  "]
    assert "nan" not in "".join(lines)


def test_by_default_it_times_the_layers_default_chunk(parallel_rda_speed):
    default = inspect.signature(keras_rda.ParallelRDA).parameters["chunk_size"].default
    assert parallel_rda_speed.CHUNK_SIZES == (default,)
