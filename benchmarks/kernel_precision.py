"""The error of the recurrence kernels' TF32 and bfloat16 matmuls against
float32 (the layers' `kernel_precision`, issue 81, point 3).

Runs the Triton recurrence (PyTorch) in interpret mode on a CPU, where the
kernels emulate the reduced precisions: each per-step matmul's operands
(`h_{t-1} r` and `R` forward, `dG_t` and `R` backward) are rounded as the
tensor cores read them (TF32: truncated to 10 mantissa bits; bfloat16:
rounded to nearest, 7 bits) and multiplied and summed in float32;
`tests/ops/kernels/test_kernel_precision.py` checks that emulation against
a float64 loop that rounds the same operands, and that a GPU build emits
the tensor-core instructions. At the benchmark width (250 units, T = 100,
one 16-row batch tile), for the RDA (the layer's defaults: sigmoid
attention, linear hidden) and the RWA (exponential attention, tanh), with
projections `P_t ~ N(0, 1)` (unit-variance inputs through Glorot weights)
and `R ~ N(0, 1 / units)`, the loss a random linear function of every
`h_t`, it records for the outputs `h_t` and the gradients of the
projections and of `R`:

- the relative error of the whole tensor, `||x - x_f32|| / ||x_f32||`;
- the largest entry's error, `max |x - x_f32| / max |x_f32|`.

The record is `results/kernels/precision_error.json`, a table that
`keras-rda report` renders in docs/guides/backends-and-performance.md:

    python benchmarks/kernel_precision.py --json results/kernels/precision_error.json

It sets `KERAS_BACKEND=torch` and interpret mode itself (importing Triton
in a process that has loaded TensorFlow aborts it). About a minute.
"""

import argparse
import os
import sys

os.environ["KERAS_BACKEND"] = "torch"
os.environ["KERAS_RDA_KERNEL_INTERPRET"] = "1"

import numpy as np  # noqa: E402

#: The benchmark width (issue 81: batch 100 x 250 units, T = 100 and 1,000):
#: one batch tile of the kernel, T = 100.
UNITS, BATCH, TIME = 250, 16, 100
#: `(unit, attention, hidden)`: the layers' defaults.
UNITS_MEASURED = (("RDA", "sigmoid", "linear"), ("RWA", "exp", "tanh"))
PRECISIONS = ("tf32", "bfloat16")
QUANTITIES = ("outputs h_t", "gradient of the projections", "gradient of R")


def run(unit, attention, hidden, precision, seed=0):
    """`[hidden, d projected, d recurrent_kernel]` as float64 NumPy arrays."""
    import torch

    from keras_rda.ops.kernels import triton_recurrence
    from keras_rda.ops.rda_recurrence import RecurrenceSpec

    discount = unit == "RDA"
    blocks = 4 if discount else 3
    rng = np.random.default_rng(seed)
    spec = RecurrenceSpec(UNITS, discount, attention, hidden, "float32")
    projected = torch.tensor(
        rng.normal(size=(TIME, BATCH, blocks * UNITS)), dtype=torch.float32
    ).requires_grad_()
    kernel = torch.tensor(
        rng.normal(size=(UNITS, (blocks - 1) * UNITS)) / np.sqrt(UNITS),
        dtype=torch.float32,
    ).requires_grad_()
    state = [torch.zeros(BATCH, UNITS) for _ in range(4)]
    weights = torch.tensor(rng.normal(size=(TIME, BATCH, UNITS)), dtype=torch.float32)
    hidden_out, *_ = triton_recurrence.recurrence(
        projected, kernel, state, spec, precision=precision, interpret=True
    )
    grads = torch.autograd.grad((hidden_out * weights).sum(), [projected, kernel])
    return [t.detach().double().numpy() for t in (hidden_out, *grads)]


def errors(reduced, full):
    """`(relative error of the tensor, largest entry's error)`."""
    difference = reduced - full
    return (
        float(np.linalg.norm(difference) / np.linalg.norm(full)),
        float(np.max(np.abs(difference)) / np.max(np.abs(full))),
    )


def measure():
    rows = []
    for unit, attention, hidden in UNITS_MEASURED:
        full = run(unit, attention, hidden, "float32")
        for precision in PRECISIONS:
            reduced = run(unit, attention, hidden, precision)
            for quantity, got, want in zip(QUANTITIES, reduced, full):
                norm, largest = errors(got, want)
                row = dict(
                    unit=unit,
                    precision=precision,
                    quantity=quantity,
                    relative_error=norm,
                    largest_error=largest,
                )
                rows.append(row)
                print(
                    f"{unit} {precision:8s} {quantity:28s} relative {norm:.2e}, "
                    f"largest entry {largest:.2e}",
                    flush=True,
                )
    return rows


def table(rows):
    """The guide's table: one row per unit and precision."""
    lines = []
    for unit, _, _ in UNITS_MEASURED:
        for precision in PRECISIONS:
            cells = [unit, precision]
            for quantity in QUANTITIES:
                (row,) = [
                    r
                    for r in rows
                    if (r["unit"], r["precision"], r["quantity"])
                    == (unit, precision, quantity)
                ]
                cells.append(
                    f"{row['relative_error']:.1e} ({row['largest_error']:.1e})"
                )
            lines.append(cells)
    return {
        "benchmark": "kernel_precision",
        "columns": ["unit", "kernel_precision", *QUANTITIES],
        "align": ["---", "---", "---:", "---:", "---:"],
        "rows": lines,
        "notes": [
            "Error against `kernel_precision='float32'`: the relative error "
            "of the whole tensor, `||x - x_float32|| / ||x_float32||`, and in "
            "parentheses the largest entry's, `max |x - x_float32| / max "
            f"|x_float32|`. {UNITS} units, T = {TIME}, a batch tile of "
            f"{BATCH} rows, the loss a random linear function of every h_t; "
            "the Triton kernels in interpret mode, where they emulate TF32 "
            "(operands truncated to 10 mantissa bits, as the tensor cores "
            "read them) and bfloat16 (operands rounded to nearest), the "
            "products and sums in float32 as on a GPU."
        ],
    }


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the table record here")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    rows = measure()
    if args.json:
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
        from keras_rda.lab.reporting.provenance import script_command
        from keras_rda.lab.reporting.report import write_table_record

        write_table_record(
            args.json,
            table(rows),
            {**script_command(argv), "env": {}},  # it sets its own backend
            figures=rows,
        )
    return rows


if __name__ == "__main__":
    main()
