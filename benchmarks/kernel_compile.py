"""What the compiler makes of the Triton kernels, for GPUs this machine lacks.

Compiles every Triton kernel of `keras_rda.ops.kernels` (the recurrence's
forward and backward, the scan's six passes) ahead of time for CUDA
targets (`triton.compile(ASTSource(...), target=GPUTarget("cuda", 90,
32))`, no GPU needed), at the units of the benchmark shapes (issue 81:
batch 100 x 250 units, batch 16 x 128, batch 1 and 256, and units 1, 64,
257 and 512), and records per kernel: the registers per thread and the
bytes of register spills (stores and loads) from ptxas `-v` (Triton's own
ptxas run, its log captured), the shared memory per block Triton
allocates (`metadata.shared`), the tensor-core instructions in the PTX
(`mma` and `wgmma`), and the compile seconds on this machine (a fresh
Triton cache, so every kernel is compiled).

The compiled code depends on the units (block sizes, warps, padding) and
not on the batch or length, so each width is compiled once. The record is
`results/benchmarks/kernel_compile.json`, a table record that
`keras-rda report` renders on the benchmarks page.

    python benchmarks/kernel_compile.py \\
        --json results/benchmarks/kernel_compile.json
    python benchmarks/kernel_compile.py --units 250 --targets 90 --kernels recurrence
    python benchmarks/kernel_compile.py --units 250 --kernels recurrence \\
        --precision tf32

(`--precision`: the recurrence's matmuls, as the layers' `kernel_precision`;
the record's default is float32.)

Run it with PyTorch's Triton installed; it sets `KERAS_BACKEND=torch`
(importing Triton in a process that has loaded TensorFlow aborts it) and
clears `TRITON_INTERPRET` (interpreted kernels do not compile).
"""

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
import time

os.environ["KERAS_BACKEND"] = "torch"
os.environ.pop("TRITON_INTERPRET", None)
os.environ["TRITON_DUMP_PTXAS_LOG"] = "1"

#: The widths of the benchmark shapes (issue 81, point 2).
DEFAULT_UNITS = (1, 64, 128, 250, 257, 512)
#: CUDA compute capabilities compiled for: Ampere (A100) and Hopper (H100).
DEFAULT_TARGETS = (80, 90)
#: Threads per warp of the CUDA targets.
WARP_SIZE = 32
#: The shared memory per block of the smallest current cards (A10, L4, RTX
#: 30/40: 99-101 KB): a kernel above it cannot run on them.
SHARED_MEMORY_LIMIT = 99 * 1024
#: Attention activation of the compiled recurrence: ReLU, the widest branch
#: (`positive` masks in the average's weights).
ATTENTION = 3

_REGISTERS = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_TENSOR_CORE = re.compile(r"^\s*(?:wgmma|mma)\.", re.MULTILINE)

COLUMNS = [
    "kernel",
    "pass",
    "units",
    "target",
    "warps",
    "registers",
    "spill stores (B)",
    "spill loads (B)",
    "shared (KB)",
    "tensor-core instr.",
    "compile (s)",
]


def ptxas_figures(log):
    """`(registers, spill stores, spill loads)` from a ptxas `-v` log (of
    one kernel)."""
    registers = _REGISTERS.findall(log)
    spills = _SPILLS.findall(log)
    if not registers or not spills:
        raise RuntimeError(f"no ptxas figures in the compile's log:\n{log[-2000:]}")
    stores = sum(int(s) for s, _ in spills)
    loads = sum(int(lo) for _, lo in spills)
    return int(registers[-1]), stores, loads


def compile_kernel(kernel, signature, constants, target, num_warps, attrs=None):
    """Compiles one kernel for `target` (e.g. 90); returns its figures."""
    figures, _ = compile_with_ptx(
        kernel, signature, constants, target, num_warps, attrs
    )
    return figures


def compile_with_ptx(kernel, signature, constants, target, num_warps, attrs=None):
    """`(figures, ptx)` of one kernel compiled for `target`."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler import compile as triton_compile

    source = ASTSource(kernel, signature, constants, attrs)
    log = io.StringIO()
    # A fresh cache: a kernel compiled before (the scan's at another width)
    # would come from it without running ptxas, so without a log.
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="kernel_compile-")
    start = time.perf_counter()
    with contextlib.redirect_stdout(log):
        compiled = triton_compile(
            source,
            target=GPUTarget("cuda", target, WARP_SIZE),
            options={"num_warps": num_warps},
        )
    seconds = time.perf_counter() - start
    registers, stores, loads = ptxas_figures(log.getvalue())
    return {
        "warps": num_warps,
        "registers": registers,
        "spill_stores": stores,
        "spill_loads": loads,
        "shared_bytes": int(compiled.metadata.shared),
        "tensor_core_instructions": len(_TENSOR_CORE.findall(compiled.asm["ptx"])),
        "compile_seconds": round(seconds, 2),
    }, compiled.asm["ptx"]


def _signature(kernel, constants, ints, int8=(), bf16=()):
    """Every argument: `constexpr`, `i32` (the sizes) or a pointer (float32;
    int8 for the masks, bfloat16 for `bf16`)."""
    return {
        name: "constexpr"
        if name in constants
        else "i32"
        if name in ints
        else "*i8"
        if name in int8
        else "*bf16"
        if name in bf16
        else "*fp32"
        for name in kernel.arg_names
    }


def _aligned(kernel, signature, values=None):
    """Triton's specialisation of a launch: pointers (and ints divisible by
    16) marked 16-divisible, as the JIT marks aligned tensors."""
    values = values or {}
    attrs = {}
    for i, name in enumerate(kernel.arg_names):
        kind = signature[name]
        if kind.startswith("*") or (kind == "i32" and values.get(name, 1) % 16 == 0):
            attrs[(i,)] = [["tt.divisibility", 16]]
    return attrs


def recurrence_rows(units, target, precision="float32"):
    """The recurrence's forward (RDA, saving for the backward) and backward
    kernels at `units`, as the layers launch them."""
    return [figures for figures, _ in recurrence_compiles(units, target, precision)]


def recurrence_compiles(units, target, precision="float32"):
    """`[(row, ptx)]` of the recurrence's forward and backward kernels at
    `units`, their matmuls at `precision` (`kernels.KERNEL_PRECISIONS`;
    `R` goes to them in bfloat16 for `"bfloat16"`)."""
    from keras_rda.ops.kernels import _triton_recurrence_jit as jit
    from keras_rda.ops.kernels import triton_recurrence

    config = triton_recurrence._launch_config(units)
    switches = dict(
        PRECISION=triton_recurrence._PRECISION_CODES[precision],
        EMULATE=False,
        DISCOUNT=True,
        ATTENTION=ATTENTION,
        TANH_HIDDEN=True,
        HAS_MASK=True,
        HAS_RECURRENT_MASK=True,
        **{k: v for k, v in config.launch.items() if k != "num_warps"},
    )
    bf16 = ("R",) if precision == "bfloat16" else ()
    rows = []
    for name, kernel, extra in (
        ("forward", jit.forward_kernel, dict(SAVE=True)),
        ("backward", jit.backward_kernel, {}),
    ):
        constants = dict(switches, **extra)
        signature = _signature(kernel, constants, "TBU", int8=("MASK",), bf16=bf16)
        attrs = _aligned(kernel, signature, {"U": units})
        figures, ptx = compile_with_ptx(
            kernel, signature, constants, target, config.num_warps, attrs
        )
        rows.append(({"kernel": "recurrence", "pass": name, **figures}, ptx))
    return rows


def scan_rows(units, target):
    """The scan's six kernels at `units` (the parallel RDA)."""
    from keras_rda.ops.kernels import _triton_scan_kernels as jit
    from keras_rda.ops.kernels import triton_scan

    block = triton_scan._block_units(units)
    rows = []
    for name in (
        "summary",
        "carry",
        "average",
        "adjoint_summary",
        "adjoint_carry",
        "gradient",
    ):
        kernel = getattr(jit, f"{name}_kernel")
        constants = {"BLOCK": block, "HAS_POS": True, "CHUNK": triton_scan.CHUNK_SIZE}
        constants = {k: v for k, v in constants.items() if k in kernel.arg_names}
        ints = ("pos_stride", "length", "num_units", "num_chunks")
        signature = _signature(kernel, constants, ints, int8=("pos_ptr",))
        attrs = _aligned(kernel, signature, {"num_units": units})
        figures = compile_kernel(
            kernel, signature, constants, target, triton_scan.NUM_WARPS, attrs
        )
        rows.append({"kernel": "scan", "pass": name, **figures})
    return rows


def measure(units_list, targets, kernels, precision="float32"):
    """The figures of `kernels` at every width and target; the recurrence's
    matmuls at `precision` (the scan has none)."""
    rows = []
    for target in targets:
        for units in units_list:
            for kernel in kernels:
                if kernel == "recurrence":
                    made = recurrence_rows(units, target, precision)
                else:
                    made = scan_rows(units, target)
                for row in made:
                    row = {"units": units, "target": f"sm_{target}", **row}
                    rows.append(row)
                    print(_line(row), flush=True)
    return rows


def _line(row):
    return (
        f"{row['kernel']:10s} {row['pass']:15s} units {row['units']:4d} "
        f"{row['target']}: {row['warps']:2d} warps, {row['registers']:3d} registers, "
        f"spills {row['spill_stores']}/{row['spill_loads']} B, shared "
        f"{row['shared_bytes'] / 1024:.1f} KB, {row['tensor_core_instructions']} "
        f"tensor-core instr., {row['compile_seconds']:.1f} s"
    )


def failures(rows, max_spill_units=256, shared_limit=SHARED_MEMORY_LIMIT):
    """What issue 81 refuses: register spills in the recurrence up to
    `max_spill_units`, shared memory above `shared_limit` per block."""
    found = []
    for row in rows:
        where = (
            f"{row['kernel']} {row['pass']} at {row['units']} units, {row['target']}"
        )
        spills = row["spill_stores"] + row["spill_loads"]
        if row["kernel"] == "recurrence" and row["units"] <= max_spill_units and spills:
            found.append(f"{where}: {spills} bytes of register spills")
        if row["shared_bytes"] > shared_limit:
            found.append(
                f"{where}: {row['shared_bytes']:,} bytes of shared memory per block"
            )
    return found


def table(rows):
    """The benchmarks page's table of `rows`."""
    return {
        "benchmark": "kernel_compile",
        "columns": COLUMNS,
        "rows": [
            [
                r["kernel"],
                r["pass"],
                r["units"],
                r["target"],
                r["warps"],
                r["registers"],
                r["spill_stores"],
                r["spill_loads"],
                f"{r['shared_bytes'] / 1024:.1f}",
                r["tensor_core_instructions"],
                f"{r['compile_seconds']:.1f}",
            ]
            for r in rows
        ],
        "notes": [
            "Compiled ahead of time without a GPU (Triton "
            "`triton.compile(ASTSource(...), target=GPUTarget(...))`); "
            "registers and spills per thread from ptxas -v, shared memory per "
            "block as Triton allocates it; compile seconds on the machine "
            "named in the record."
        ],
    }


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, nargs="+", default=list(DEFAULT_UNITS))
    parser.add_argument(
        "--targets",
        type=int,
        nargs="+",
        default=list(DEFAULT_TARGETS),
        help="CUDA compute capabilities, e.g. 80 90",
    )
    parser.add_argument(
        "--kernels",
        nargs="+",
        default=["recurrence", "scan"],
        choices=["recurrence", "scan"],
    )
    parser.add_argument(
        "--precision",
        default="float32",
        choices=["float32", "tf32", "bfloat16"],
        help="the recurrence's matmuls (the layers' kernel_precision)",
    )
    parser.add_argument("--json", help="write the table record here")
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a kernel spills (recurrence up to 256 units) or needs "
        "more than 99 KB of shared memory",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    rows = measure(args.units, args.targets, args.kernels, args.precision)
    if args.json:
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
        from keras_rda.lab.reporting.provenance import script_command
        from keras_rda.lab.reporting.report import write_table_record

        write_table_record(
            args.json,
            table(rows),
            {**script_command(argv), "env": {}},  # it sets its own backend
            kind="timing",
            figures=rows,
        )
    found = failures(rows)
    for line in found:
        print("FAIL", line)
    if args.check and found:
        raise SystemExit(1)
    return rows


if __name__ == "__main__":
    main()
