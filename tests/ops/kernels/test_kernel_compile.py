"""What the compiler makes of the Triton kernels, checked without a GPU
(issue 81, point 2): `benchmarks/kernel_compile.py` compiles them ahead of
time for CUDA targets and reads ptxas's registers and spills and Triton's
shared memory; these tests fail where the recurrence spills registers up
to 256 units or a kernel needs more than 99 KB of shared memory per block
(A10, L4, RTX 30/40), and check the committed record of every width.

The compiles run in a fresh process: Triton's interpret mode, which the
other kernel tests set in this one, is fixed per process. PyTorch-backend
run only (it has Triton); the Pallas recurrence compiles for minutes and
is not checked here (it stays out of `use_kernel="auto"`).
"""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.requires_backend("torch")

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "benchmarks" / "kernel_compile.py"
RECORD = ROOT / "results" / "benchmarks" / "kernel_compile.json"

_MEASURE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("kernel_compile", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
units, targets, kernels = (a.split(",") for a in sys.argv[2:5])
rows = module.measure([int(u) for u in units], [int(t) for t in targets], kernels)
print("ROWS " + json.dumps(rows))
"""


def _script():
    """The script as a module, for its pure functions (no compile, and no
    Triton import: it imports Triton only inside its compile functions)."""
    spec = importlib.util.spec_from_file_location("kernel_compile", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    saved = dict(os.environ)
    try:
        spec.loader.exec_module(module)
    finally:  # its import sets KERAS_BACKEND and the ptxas log for its own run
        os.environ.clear()
        os.environ.update(saved)
    return module


def compile_rows(tmp_path, units, targets, kernels):
    """The figures of `kernels` compiled at `units` for `targets`."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(tmp_path)  # empty: every kernel compiles
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    args = [",".join(map(str, a)) for a in (units, targets, kernels)]
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(SCRIPT), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("ROWS ")]
    assert result.returncode == 0 and lines, result.stderr[-3000:]
    return json.loads(lines[-1][len("ROWS ") :])


#: Issue 81, point 3, open: ptxas for sm_90 (`benchmarks/kernel_compile.py
#: --units 250 --targets 90 --kernels recurrence`, 16 warps, 128 registers)
#: reports 196/268 bytes of spill stores/loads per thread forward and
#: 668/700 backward. Strict: the tests fail once the spills are gone, to be
#: turned into the gate they are meant to be.
SPILLS = pytest.mark.xfail(
    strict=True,
    reason="the Triton recurrence still spills registers at 250 units and needs "
    "more than 99 KB of shared memory per block from 257 units (issue 81)",
)


@pytest.mark.slow
@SPILLS
def test_the_recurrence_at_250_units_neither_spills_nor_overflows_shared_memory(
    tmp_path,
):
    """The benchmark width (batch 100 x 250 units, 256 padded), forward and
    backward, for sm_90 and sm_80."""
    rows = compile_rows(tmp_path, [250], [90, 80], ["recurrence"])
    assert len(rows) == 4
    assert _script().failures(rows) == []


def test_the_kernels_compile_for_a_gpu_without_one(tmp_path):
    """Interpret mode does not lower the kernels: every kernel (the
    recurrence's two, the scan's six) compiles for sm_90 at a small width
    with the ptxas of Triton's wheel, its figures read from the log."""
    rows = compile_rows(tmp_path, [17], [90], ["recurrence", "scan"])
    assert [r["pass"] for r in rows] == [
        "forward",
        "backward",
        "summary",
        "carry",
        "average",
        "adjoint_summary",
        "adjoint_carry",
        "gradient",
    ]
    for row in rows:
        assert row["registers"] > 0 and row["target"] == "sm_90", row
    assert _script().failures(rows) == []
    assert all(r["shared_bytes"] <= _shared_memory_estimate(17) for r in rows)


def test_the_check_fails_on_spills_and_shared_memory():
    """The check can fail: spills in the recurrence up to 256 units, more
    than 99 KB of shared memory anywhere (not spills past 256 units)."""
    script = _script()
    row = dict(
        kernel="recurrence",
        units=250,
        target="sm_90",
        spill_stores=0,
        spill_loads=0,
        shared_bytes=68 * 1024,
    )
    assert script.failures([dict(row, **{"pass": "forward"})]) == []
    spilled = dict(row, **{"pass": "backward", "spill_loads": 8})
    assert "8 bytes of register spills" in script.failures([spilled])[0]
    wide = dict(row, **{"pass": "forward", "units": 512, "spill_stores": 64})
    assert script.failures([wide]) == []
    wide["shared_bytes"] = 132 * 1024
    assert "135,168 bytes of shared memory" in script.failures([wide])[0]


def test_ptxas_figures_are_read_from_its_log():
    log = (
        "ptxas info    : Compiling entry function 'forward_kernel' for 'sm_90'\n"
        "ptxas info    : Function properties for forward_kernel\n"
        "    1640 bytes stack frame, 1628 bytes spill stores, 1660 bytes spill loads\n"
        "ptxas info    : Used 128 registers, used 1 barriers, 1640 bytes "
        "cumulative stack size\n"
    )
    assert _script().ptxas_figures(log) == (128, 1628, 1660)
    with pytest.raises(RuntimeError, match="no ptxas figures"):
        _script().ptxas_figures("nothing")


def test_the_committed_record_covers_the_benchmark_widths():
    """`results/benchmarks/kernel_compile.json`: every kernel at units 1,
    64, 128, 250, 257 and 512 for sm_80 and sm_90."""
    script = _script()
    rows = json.loads(RECORD.read_text())["figures"]
    widths = {(r["units"], r["target"]) for r in rows}
    assert widths == {
        (u, f"sm_{t}") for u in script.DEFAULT_UNITS for t in script.DEFAULT_TARGETS
    }
    assert len(rows) == len(widths) * 8


def _shared_memory_estimate(units):
    """`triton_recurrence.shared_memory_bytes`, the estimate that the layers
    check against the device's shared memory per block."""
    from keras_rda.ops.kernels import triton_recurrence

    return triton_recurrence.shared_memory_bytes(units)


def test_the_shared_memory_estimate_bounds_the_compilers_figures():
    """The estimate is an upper bound of the shared memory Triton allocated
    for both recurrence kernels at every width and target of the committed
    record, and within 10% of the largest of them from 64 units on (today
    equal to it; at fewer units Triton does not pipeline the dots and needs
    a fraction)."""
    rows = json.loads(RECORD.read_text())["figures"]
    by_width = {}
    for row in rows:
        if row["kernel"] == "recurrence":
            key = (row["units"], row["target"])
            by_width[key] = max(by_width.get(key, 0), row["shared_bytes"])
    assert len(by_width) == 12
    for (units, target), needed in by_width.items():
        estimate = _shared_memory_estimate(units)
        assert needed <= estimate, (units, target, needed, estimate)
        if units >= 64:
            assert estimate <= 1.1 * needed, (units, target, needed, estimate)


@SPILLS
def test_the_committed_record_is_within_limits():
    """None of the record's figures fails the check (spills up to 256 units,
    shared memory above 99 KB)."""
    rows = json.loads(RECORD.read_text())["figures"]
    assert _script().failures(rows) == []
