"""The fused kernels against today's path and the LSTM, on JAX or PyTorch.

What issue 68 measures on a GPU, in one process, every model interleaved
(model A, B, C, ..., then again; at least 7 rounds after warm-up; median
and range):

- `train`: one training step (forward, backward, Adam) of
  `Input((T, 2)) -> layer -> Dense(1)` on an MSE loss of the last output,
  for Keras's LSTM (on PyTorch, and where Keras takes it on JAX, cuDNN's),
  `torch.nn.LSTM` itself on PyTorch, and the RDA, RWA and ParallelRDA
  layers with `use_kernel=False` (today's path) and `use_kernel=True`
  (the fused kernel), the RDA's and RWA's kernels at float32 and at
  `kernel_precision="tf32"` (the `... kernel tf32` rows; the scan has no
  matmul). Ratios are to Keras's LSTM of the same size.
- `forward` and `forward+backward` of the layer alone, returning every
  step (`jax.jit` of its stateless call, and of its gradient; on PyTorch
  the call under `no_grad`, and the call with `backward`).
- `first_call_s` of every row: the first call's seconds (tracing and
  compiling, the kernels' included), timed before the rounds, so that
  compile time is reported apart from the steady state.

Targets (issue 68): the RDA's and RWA's training step at most 0.5x the
LSTM's at batch 100, 250 units, T = 100 and 1,000; ParallelRDA forward and
backward at batch 16, 128 units, T = 10,000 within 1 ms. The record says
which are met.

Models whose kernel cannot run here (no GPU, TensorFlow) are left out and
named in the record's `skipped`. `--quick` is a smoke run at tiny sizes;
with `KERAS_RDA_KERNEL_INTERPRET=1` on a CPU it runs the kernels in
interpret mode (correct, not fast).

    KERAS_BACKEND=jax python benchmarks/kernel_speed.py \
        --json results/benchmarks/h200/jax_kernel_speed.json
    KERAS_BACKEND=torch python benchmarks/kernel_speed.py \
        --json results/benchmarks/h200/torch_kernel_speed.json
    KERAS_BACKEND=jax python benchmarks/kernel_speed.py --quick
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from harness import interleaved  # noqa: E402

import keras_rda  # noqa: E402
from keras_rda.lab.reporting.provenance import provenance  # noqa: E402
from keras_rda.lab.reporting.provenance import script_command  # noqa: E402
from keras_rda.lab.reporting.report import write_json  # noqa: E402
from keras_rda.ops import kernels  # noqa: E402

#: `(batch, units, T)`: issue 68's sizes, then batch 1 and 256.
DEFAULT_CONFIGS = (
    (100, 250, 100),
    (100, 250, 1000),
    (16, 128, 10000),
    (1, 250, 1000),
    (256, 250, 1000),
)
INPUT_DIM = 2
#: Keras layer constructors by model name; `kernel` is the `use_kernel`.
LAYERS = {
    "LSTM": (lambda units, **kw: keras.layers.LSTM(units, **kw), None),
    "RDA": (lambda units, **kw: keras_rda.RDA(units, use_kernel=False, **kw), False),
    "RDA kernel": (
        lambda units, **kw: keras_rda.RDA(units, use_kernel=True, **kw),
        True,
    ),
    "RDA kernel tf32": (
        lambda units, **kw: keras_rda.RDA(
            units, use_kernel=True, kernel_precision="tf32", **kw
        ),
        True,
    ),
    "RWA": (lambda units, **kw: keras_rda.RWA(units, use_kernel=False, **kw), False),
    "RWA kernel": (
        lambda units, **kw: keras_rda.RWA(units, use_kernel=True, **kw),
        True,
    ),
    "RWA kernel tf32": (
        lambda units, **kw: keras_rda.RWA(
            units, use_kernel=True, kernel_precision="tf32", **kw
        ),
        True,
    ),
    "ParallelRDA": (
        lambda units, **kw: keras_rda.ParallelRDA(units, use_kernel=False, **kw),
        False,
    ),
    "ParallelRDA kernel": (
        lambda units, **kw: keras_rda.ParallelRDA(units, use_kernel=True, **kw),
        True,
    ),
}
#: The issue's targets: `(model, batch, units, T, part, bound, kind)`.
TARGETS = (
    ("RDA kernel", 100, 250, 100, "train", 0.5, "ratio"),
    ("RDA kernel", 100, 250, 1000, "train", 0.5, "ratio"),
    ("RWA kernel", 100, 250, 100, "train", 0.5, "ratio"),
    ("RWA kernel", 100, 250, 1000, "train", 0.5, "ratio"),
    ("ParallelRDA kernel", 16, 128, 10000, "forward+backward", 1.0, "ms"),
)


# ------------------------------------------------------------------ timing


def synchronize():
    """Waits for the device's queued work (PyTorch on CUDA)."""
    if keras.backend.backend() == "torch":
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()


def milliseconds(calls, warmup, rounds):
    """Milliseconds per call of each of `calls` (`{name: fn}`), interleaved
    (`timing.interleaved`, the device drained around each call).

    Returns:
        `{name: {"median_ms", "min_ms", "max_ms", "rounds"}}`.
    """
    times = interleaved(calls, warmup, rounds, synchronize=synchronize)
    return {
        name: {
            "median_ms": statistics.median(t) * 1e3,
            "min_ms": min(t) * 1e3,
            "max_ms": max(t) * 1e3,
            "rounds": len(t),
        }
        for name, t in times.items()
    }


# ------------------------------------------------------------------ models


def training_step(name, units, length):
    """`train_on_batch` of `Input -> layer -> Dense(1)` on MSE."""
    make, _ = LAYERS[name]
    model = keras.Sequential(
        [keras.Input((length, INPUT_DIM)), make(units), keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(1e-3), "mse", jit_compile="auto")
    return model


def torch_lstm_step(units, batch, length):
    """One training step of `torch.nn.LSTM` + a linear head with Adam."""
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    lstm = torch.nn.LSTM(INPUT_DIM, units, batch_first=True).to(device)
    head = torch.nn.Linear(units, 1).to(device)
    params = list(lstm.parameters()) + list(head.parameters())
    optimizer = torch.optim.Adam(params, 1e-3)
    x = torch.rand(batch, length, INPUT_DIM, device=device)
    y = torch.rand(batch, 1, device=device)

    def step():
        optimizer.zero_grad()
        out, _ = lstm(x)
        loss = torch.mean((head(out[:, -1]) - y) ** 2)
        loss.backward()
        optimizer.step()

    return step


def layer_calls(name, units, x):
    """`(forward, forward_and_backward)` of the layer alone on `x`,
    every step returned; the loss of the backward is `sum(y^2)`."""
    make, _ = LAYERS[name]
    layer = make(units, return_sequences=True)
    layer.build(x.shape)
    if keras.backend.backend() == "jax":
        import jax
        import jax.numpy as jnp

        trainable = [v.value for v in layer.trainable_variables]
        frozen = [v.value for v in layer.non_trainable_variables]
        x = jnp.asarray(x)

        def apply(weights, inputs):
            return layer.stateless_call(weights, frozen, inputs)[0]

        forward = jax.jit(apply)
        gradient = jax.jit(jax.grad(lambda w, i: jnp.sum(apply(w, i) ** 2)))
        return (
            lambda: jax.block_until_ready(forward(trainable, x)),
            lambda: jax.block_until_ready(gradient(trainable, x)),
        )
    import torch

    x = keras.ops.convert_to_tensor(x)

    def forward():
        with torch.no_grad():
            layer(x)

    def forward_and_backward():
        layer.zero_grad()
        torch.sum(layer(x) ** 2).backward()

    return forward, forward_and_backward


def lstm_uses_cudnn():
    """Whether Keras's LSTM takes its cuDNN path on this backend here."""
    backend = keras.backend.backend()
    try:
        module = __import__(f"keras.src.backend.{backend}.rnn", fromlist=["cudnn_ok"])
        return bool(
            module.cudnn_ok(
                keras.activations.tanh, keras.activations.sigmoid, unroll=False
            )
        )
    except (ImportError, AttributeError, TypeError):
        return False


def device_name():
    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        return jax.devices()[0].device_kind
    if backend == "torch":
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name()
    return "cpu"


# ------------------------------------------------------------------ run


def runnable_models(names):
    """The models of `names` that can run here, and those left out (why)."""
    reason = kernels.unavailable_reason()
    kept, skipped = [], {}
    for name in names:
        if LAYERS[name][1] and reason:
            skipped[name] = reason
        else:
            kept.append(name)
    return kept, skipped


def measure_config(batch, units, length, names, args):
    rng = np.random.default_rng(0)
    x = rng.random((batch, length, INPUT_DIM), dtype=np.float32)
    y = rng.random((batch, 1), dtype=np.float32)
    rows = []
    if "train" in args.parts:
        calls = {}
        for name in names:
            model = training_step(name, units, length)
            calls[name] = lambda m=model: m.train_on_batch(x, y)
        if keras.backend.backend() == "torch":
            calls["torch.nn.LSTM"] = torch_lstm_step(units, batch, length)
        rows += _rows(batch, units, length, "train", calls, args)
    for part in ("forward", "forward+backward"):
        if part not in args.parts:
            continue
        calls = {}
        for name in names:
            forward, both = layer_calls(name, units, x)
            calls[name] = forward if part == "forward" else both
        rows += _rows(batch, units, length, part, calls, args)
    keras.backend.clear_session()
    return rows


def first_call_seconds(calls):
    """Seconds of each call's first run (tracing and compiling it, the
    kernels' too, then one run), timed before the interleaved rounds so
    that compilation is reported apart from the steady state."""
    seconds = {}
    for name, fn in calls.items():
        synchronize()
        start = time.perf_counter()
        fn()
        synchronize()
        seconds[name] = time.perf_counter() - start
    return seconds


def _rows(batch, units, length, part, calls, args):
    first = first_call_seconds(calls)
    timed = milliseconds(calls, args.warmup, args.rounds)
    reference = timed.get("LSTM", {}).get("median_ms")
    rows = []
    for name, t in timed.items():
        ratio = t["median_ms"] / reference if reference else None
        rows.append(
            {
                "batch": batch,
                "units": units,
                "length": length,
                "part": part,
                "model": name,
                **t,
                "ratio_to_lstm": ratio,
                "first_call_s": first[name],
            }
        )
        print(
            f"batch {batch:>3} units {units:>3} T {length:>5} {part:<16} "
            f"{name:<20} {t['median_ms']:9.3f} ms "
            f"({t['min_ms']:.3f}-{t['max_ms']:.3f}), first call {first[name]:.1f} s"
            + ("" if ratio is None else f"  {ratio:.2f}x LSTM"),
            flush=True,
        )
    return rows


def check_targets(rows):
    """Each issue-68 target met or missed on this run (absent if not run)."""
    results = []
    for model, batch, units, length, part, bound, kind in TARGETS:
        row = next(
            (
                r
                for r in rows
                if (r["model"], r["batch"], r["units"], r["length"], r["part"])
                == (model, batch, units, length, part)
            ),
            None,
        )
        if row is None:
            continue
        value = row["ratio_to_lstm"] if kind == "ratio" else row["median_ms"]
        results.append(
            {
                "model": model,
                "batch": batch,
                "units": units,
                "length": length,
                "part": part,
                "bound": bound,
                "kind": kind,
                "value": value,
                "met": value is not None and value <= bound,
            }
        )
    return results


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--configs",
        nargs="+",
        metavar="BATCH,UNITS,T",
        help="sizes to time (default: issue 68's, then batch 1 and 256)",
    )
    parser.add_argument("--models", nargs="+", choices=list(LAYERS), default=None)
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=["train", "forward", "forward+backward"],
        default=["train", "forward", "forward+backward"],
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--json", metavar="PATH", help="write the record here")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    args = parser.parse_args(argv)
    if args.configs:
        args.configs = [tuple(int(v) for v in c.split(",")) for c in args.configs]
    elif args.quick:
        args.configs = [(2, 5, 7)]
    else:
        args.configs = list(DEFAULT_CONFIGS)
    if args.quick:
        args.rounds, args.warmup = 2, 1
    if args.models is None:
        args.models = list(LAYERS)
    return args


def main(argv=None):
    args = parse_args(argv)
    if keras.backend.backend() not in kernels.KERNEL_BACKENDS:
        raise SystemExit(
            "benchmarks/kernel_speed.py: the kernels exist on JAX and PyTorch; "
            "set KERAS_BACKEND=jax or torch"
        )
    names, skipped = runnable_models(args.models)
    record = {
        "kind": "kernel_speed",
        "commands": [script_command(argv)],
        "backend": keras.backend.backend(),
        "device": device_name(),
        "keras_lstm_uses_cudnn": lstm_uses_cudnn(),
        **provenance(),
        "settings": {
            "configs": [list(c) for c in args.configs],
            "parts": args.parts,
            "rounds": args.rounds,
            "warmup": args.warmup,
            "input_dim": INPUT_DIM,
        },
        "skipped": skipped,
        "configs_done": 0,
        "rows": [],
        "targets": [],
    }
    for batch, units, length in args.configs:
        record["rows"] += measure_config(batch, units, length, names, args)
        record["configs_done"] += 1
        record["targets"] = check_targets(record["rows"])
        if args.json:
            # After every size, so that a run cut by its time limit keeps
            # what it measured.
            write_json(args.json, record)
    for target in record["targets"]:
        print(
            f"target {target['model']} {target['part']} batch {target['batch']} "
            f"T {target['length']}: {target['value']:.3f} "
            f"({'<=' if target['met'] else '>'} {target['bound']} {target['kind']}): "
            f"{'met' if target['met'] else 'missed'}"
        )
    return record


if __name__ == "__main__":
    main()
