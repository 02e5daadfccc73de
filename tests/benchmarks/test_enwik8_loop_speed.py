"""`benchmarks/enwik8_loop_speed.py`: its projection, table and command
(the worker processes are run by the GPU check and the record's command)."""

import argparse

import pytest

from tests.benchmarks.conftest import benchmark_script

PAPER = {"steps": 36_000, "eval_every": 1000, "eval_chars": 500_000}


@pytest.fixture(scope="module")
def speed():
    with benchmark_script("enwik8_loop_speed") as module:
        yield module


def test_projection_counts_steps_and_every_evaluation(speed):
    # 36,000 steps at 0.5 s; evaluations after steps 1000..35000 (35 of
    # them, none at the last step) on 500k characters, then 5M + 5M.
    hours = speed.projected_hours(PAPER, 0.5, eval_speed=100_000)
    assert hours["training_h"] == pytest.approx(36_000 * 0.5 / 3600)
    eval_chars = 35 * 500_000 + 10_000_000
    assert hours["evaluation_h"] == pytest.approx(eval_chars / 100_000 / 3600)
    # eval_chars 0 means the whole (5M) validation split each time.
    small = {"steps": 1000, "eval_every": 250, "eval_chars": 0}
    hours = speed.projected_hours(small, 0.1, eval_speed=1e6)
    assert hours["evaluation_h"] == pytest.approx((3 * 5e6 + 1e7) / 1e6 / 3600)


def test_table_ratios_are_to_the_first_backend(speed):
    def entry(backend, times):
        preset = {"units": 128, "batch_size": 32, "bptt": 100, **PAPER}
        worker = argparse.Namespace(
            ready={
                "backend": backend,
                "preset": preset,
                "eval_chars_per_sec": 1e5,
                "compile_s": 3.0,
            }
        )
        return speed.summary(worker, times)

    entries = [entry("tensorflow", [0.2, 0.1, 0.3]), entry("jax", [0.05, 0.04])]
    assert entries[0]["chars_per_sec_median"] == pytest.approx(3200 / 0.2)
    assert entries[1]["chars_per_sec_median"] == pytest.approx(3200 / 0.045)
    columns, rows = speed.table(entries, argparse.Namespace(model="rda"))
    assert columns[3] == "ratio to tensorflow"
    assert [r[3] for r in rows] == ["1.00x", f"{0.2 / 0.045:.2f}x"]
    assert rows[1][0] == "jax RDA 128"


def test_the_command_names_the_committed_record(speed):
    argv = ["--scale", "paper", "--json", "/out/x.json", "--record-path", "r/a.json"]
    args = argparse.Namespace(record_path="r/a.json")
    assert speed.command_args(args, argv) == ["--scale", "paper", "--json", "r/a.json"]
    args = argparse.Namespace(record_path=None)
    assert speed.command_args(args, ["--json", "p.json"]) == ["--json", "p.json"]
