"""The RDA/RWA layers' `kernel_precision` (issue 81, point 3): the
recurrence kernels' per-step matmuls in IEEE float32 (the default), TF32
or bfloat16, accumulated in float32.

What is checked without a GPU:

- the argument: its values, one `ValueError` naming it and the value, the
  config round trip, `ParallelRDA` refusing it (its scan has no matmul),
  and the portable path ignoring it;
- the numbers, in interpret mode, where the kernels emulate the reduced
  precisions (operands rounded as the tensor cores read them, products in
  float32): Triton's results and gradients equal a float64 loop whose
  matmuls round their operands the same way (so the rounding is exactly
  TF32's truncation to 10 mantissa bits, bfloat16's rounding to nearest),
  and differ from float32 by what that rounding gives, not by nothing;
  Pallas's likewise against its float32 kernel, and the layers' against
  today's path;
- what a GPU runs: the Triton kernels compiled ahead of time for sm_90 hold
  TF32 or bfloat16 tensor-core instructions (`mma`) at those precisions and
  none at float32; the Pallas kernels' dots carry the precision that its
  Triton lowering turns into TF32, or bfloat16 operands.

The error these give at the benchmark width (250 units, T = 100) is
measured by `benchmarks/kernel_precision.py` and stated in the guide
(docs/guides/backends-and-performance.md).
"""

import json
import os
import pathlib
import subprocess
import sys

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.ops import kernels
from keras_rda.ops.rda_recurrence import RecurrenceSpec

ROOT = pathlib.Path(__file__).resolve().parents[3]
REDUCED = ["tf32", "bfloat16"]
#: The largest difference from float32 each precision may give at the small
#: shapes below, as a fraction of the largest entry (operands rounded to 10
#: mantissa bits: about 1e-3 relative; to bfloat16's 7: about 4e-3).
FROM_FLOAT32 = {"tf32": 5e-3, "bfloat16": 3e-2}


@pytest.fixture(autouse=True)
def _interpret_without_a_gpu(monkeypatch):
    backend = keras.backend.backend()
    if backend not in kernels.KERNEL_BACKENDS:
        return
    if backend == "jax":
        import jax

        on_gpu = jax.default_backend() == "gpu"
    else:
        import torch

        on_gpu = torch.cuda.is_available()
    if not on_gpu:
        monkeypatch.setenv(kernels.INTERPRET_VARIABLE, "1")


# ---------------------------------------------------------------- argument


@pytest.mark.parametrize("value", kernels.KERNEL_PRECISIONS)
def test_the_three_precisions_are_accepted(value):
    assert kernels.validate_kernel_precision(value) == value
    assert keras_rda.RDA(3, kernel_precision=value).kernel_precision == value


@pytest.mark.parametrize("layer_class", [keras_rda.RDA, keras_rda.RWA])
@pytest.mark.parametrize("value", ["float16", "TF32", "highest", None, 32])
def test_another_value_is_refused_naming_the_argument(layer_class, value):
    with pytest.raises(
        ValueError,
        match=r"argument `kernel_precision`, expected one of 'float32', 'tf32', "
        rf"'bfloat16', got {value!r}",
    ):
        layer_class(3, kernel_precision=value)


@pytest.mark.parametrize("layer_class", [keras_rda.RDA, keras_rda.RWA])
def test_the_config_round_trips(layer_class):
    layer = layer_class(3, use_kernel=True, kernel_precision="tf32")
    config = layer.get_config()
    assert config["kernel_precision"] == "tf32"
    assert layer_class.from_config(config).kernel_precision == "tf32"
    # A config saved before the argument existed loads with float32.
    del config["kernel_precision"]
    assert layer_class.from_config(config).kernel_precision == "float32"


def test_parallel_rda_does_not_take_it():
    """Its scan kernel has no matmul: a clear error, and no config entry."""
    with pytest.raises(ValueError, match=r"`kernel_precision='tf32'`.*no matmul"):
        keras_rda.ParallelRDA(3, kernel_precision="tf32")
    assert "kernel_precision" not in keras_rda.ParallelRDA(3).get_config()


@pytest.mark.parametrize("layer_class", [keras_rda.RDA, keras_rda.RWA])
def test_the_portable_path_ignores_it(layer_class):
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")
    plain = layer_class(4, use_kernel=False, return_sequences=True)
    reduced = layer_class(
        4, use_kernel=False, return_sequences=True, kernel_precision="bfloat16"
    )
    plain(x), reduced(x)
    reduced.set_weights(plain.get_weights())
    np.testing.assert_array_equal(
        keras.ops.convert_to_numpy(reduced(x)), keras.ops.convert_to_numpy(plain(x))
    )


def test_the_committed_error_record_covers_both_units_and_precisions():
    """`results/kernels/precision_error.json` (the guide's table, from
    `benchmarks/kernel_precision.py`): the RDA and the RWA at TF32 and
    bfloat16, every error below 1e-2 and TF32's below bfloat16's."""
    record = json.loads((ROOT / "results/kernels/precision_error.json").read_text())
    figures = {(r["unit"], r["precision"], r["quantity"]): r for r in record["figures"]}
    assert len(figures) == 2 * 2 * 3
    for (unit, precision, quantity), row in figures.items():
        assert 0 < row["relative_error"] < 1e-2 and 0 < row["largest_error"] < 1e-2
        if precision == "tf32":
            bf16 = figures[(unit, "bfloat16", quantity)]
            assert row["relative_error"] < bf16["relative_error"]


# ------------------------------------------------------------------ Triton


def _rounding(precision):
    """Float64 torch `x` rounded as the tensor cores read it, as float64."""
    import torch

    if precision == "bfloat16":
        return lambda x: x.to(torch.bfloat16).to(x.dtype)
    return lambda x: (
        (x.to(torch.float32).view(torch.int32) & -(2**13))
        .view(torch.float32)
        .to(x.dtype)
    )


def _rounded_matmul(precision):
    """`h @ R` whose operands are rounded (`_rounding`), as is the backward's
    `dG @ R^T`; the gradient of `R` unrounded, as the kernels' float32 `dR`."""
    import torch

    rounded = _rounding(precision)

    class RoundedMatmul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, left, right):
            ctx.save_for_backward(left, right)
            return rounded(left) @ rounded(right)

        @staticmethod
        def backward(ctx, grad):
            left, right = ctx.saved_tensors
            return rounded(grad) @ rounded(right).T, left.T @ grad

    return RoundedMatmul.apply


def _triton_run(spec, inputs, mask, recurrent_mask, precision, weights=None):
    """Results and gradients (of a random linear loss) of the Triton kernel."""
    import torch

    from keras_rda.ops.kernels import triton_recurrence

    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = [v.to(device, torch.float32).requires_grad_() for v in inputs]
    results = triton_recurrence.recurrence(
        x[0],
        x[1],
        x[2:],
        spec,
        mask=None if mask is None else mask.to(device),
        recurrent_mask=None
        if recurrent_mask is None
        else recurrent_mask.to(device, torch.float32),
        precision=precision,
        interpret=kernels.interpret_mode(),
    )
    loss = sum((r * w.to(device, r.dtype)).sum() for r, w in zip(results, weights))
    grads = torch.autograd.grad(loss, x)
    return [t.detach().cpu().double().numpy() for t in (*results, *grads)]


def _loss_weights(shapes, seed):
    import torch

    rng = np.random.default_rng(seed)
    return [torch.tensor(rng.normal(size=s)) for s in shapes]


def _assert_within(actual, expected, fraction, what):
    """Every entry within `fraction` of the largest (at least 1)."""
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=fraction * scale)


NAMES = ["hidden", "n", "d", "m", "d projected", "d kernel", "dh0", "dn0", "dd0"]


@pytest.mark.requires_backend("torch")
@pytest.mark.parametrize("precision", REDUCED)
@pytest.mark.parametrize("kind", ["rda", "rwa"])
def test_triton_rounds_the_matmul_operands_and_nothing_else(kind, precision):
    """Results and gradients equal the float64 loop whose matmuls round
    their operands as TF32 or bfloat16 (to 1e-5 of the largest entry, the
    float32 arithmetic), and differ from the float32 kernel by up to
    `FROM_FLOAT32`, not by nothing."""
    import torch

    from tests.ops.kernels.test_triton_recurrence import make_inputs
    from tests.ops.kernels.test_triton_recurrence import reference

    units, batch, time = 17, 3, 7
    attention = "sigmoid" if kind == "rda" else "exp"
    spec = RecurrenceSpec(units, kind == "rda", attention, "tanh", "float32")
    inputs, mask, recurrent_mask = make_inputs(
        8, batch, units, time, spec.discount, masked=True, dropout=True
    )
    shapes = [(time, batch, units)] + [(batch, units)] * 3
    weights = _loss_weights(shapes, 9)
    ref_inputs = [v.clone().requires_grad_() for v in inputs]
    expected = reference(
        ref_inputs[0],
        ref_inputs[1],
        ref_inputs[2:],
        spec,
        mask,
        recurrent_mask,
        matmul=_rounded_matmul(precision),
    )
    loss = sum((r * w).sum() for r, w in zip(expected, weights))
    expected_grads = torch.autograd.grad(loss, ref_inputs)
    expected = [t.detach().numpy() for t in (*expected, *expected_grads)]

    reduced = _triton_run(spec, inputs, mask, recurrent_mask, precision, weights)
    full = _triton_run(spec, inputs, mask, recurrent_mask, "float32", weights)
    for name, got, want, f32 in zip(NAMES, reduced, expected, full):
        _assert_within(got, want, 1e-5, f"{name} against the rounded loop")
        _assert_within(got, f32, FROM_FLOAT32[precision], f"{name} against float32")
    for name, got, f32 in zip(NAMES, reduced, full):
        if name in ("hidden", "d projected", "d kernel"):
            assert not np.array_equal(got, f32), f"{name}: no rounding happened"


_COMPILE = """
import importlib.util, json, re, sys
spec = importlib.util.spec_from_file_location("kernel_compile", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
found = {}
for precision in ("float32", "tf32", "bfloat16"):
    for row, ptx in module.recurrence_compiles(int(sys.argv[2]), 90, precision):
        kinds = re.findall(r"^\\s*(?:wgmma|mma)\\S*", ptx, re.MULTILINE)
        found[precision + " " + row["pass"]] = sorted(set(kinds))
print("FOUND " + json.dumps(found))
"""


@pytest.mark.requires_backend("torch")
def test_triton_tf32_and_bfloat16_compile_to_tensor_core_instructions(tmp_path):
    """Compiled for sm_90 without a GPU (a fresh process: interpret mode is
    fixed per process), the forward and backward kernels hold `mma`
    instructions on TF32 or bfloat16 operands at those precisions and no
    tensor-core instruction at float32."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    script = ROOT / "benchmarks" / "kernel_compile.py"
    result = subprocess.run(
        [sys.executable, "-c", _COMPILE, str(script), "17"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [x for x in result.stdout.splitlines() if x.startswith("FOUND ")]
    assert result.returncode == 0 and lines, result.stderr[-3000:]
    found = json.loads(lines[-1][len("FOUND ") :])
    for part in ("forward", "backward"):
        assert found[f"float32 {part}"] == [], found
        for precision, operand in (("tf32", ".tf32"), ("bfloat16", ".bf16")):
            kinds = found[f"{precision} {part}"]
            assert kinds and all(operand in k for k in kinds), (precision, found)


# ------------------------------------------------------------------ Pallas


def _pallas_run(precision, interpret=True):
    """`(results, gradients)` of the Pallas recurrence on fixed operands."""
    import jax
    import jax.numpy as jnp

    from keras_rda.ops.kernels import pallas_recurrence

    rng = np.random.default_rng(3)
    units, batch, time = 17, 3, 7
    spec = RecurrenceSpec(units, True, "sigmoid", "tanh", "float32")
    projected = jnp.asarray(rng.normal(size=(time, batch, 4 * units)), jnp.float32)
    kernel = jnp.asarray(
        rng.normal(size=(units, 3 * units)) / np.sqrt(units), jnp.float32
    )
    state = [jnp.asarray(np.tanh(rng.normal(size=(batch, units))), jnp.float32)]
    state += [jnp.zeros((batch, units), jnp.float32)] * 3
    weights = [
        jnp.asarray(rng.normal(size=s), jnp.float32)
        for s in [(time, batch, units)] + [(batch, units)] * 3
    ]

    def loss(projected, kernel, h0):
        results = pallas_recurrence.recurrence(
            projected,
            kernel,
            [h0, *state[1:]],
            spec,
            precision=precision,
            interpret=interpret,
        )
        return sum(jnp.sum(r * w) for r, w in zip(results, weights)), results

    if not interpret:
        return jax.make_jaxpr(jax.grad(lambda *a: loss(*a)[0], argnums=(0, 1)))(
            projected, kernel, state[0]
        )
    grad = jax.value_and_grad(loss, argnums=(0, 1, 2), has_aux=True)
    (_, results), grads = grad(projected, kernel, state[0])
    return [np.asarray(t, np.float64) for t in (*results, *grads)]


@pytest.mark.requires_backend("jax")
@pytest.mark.parametrize("precision", REDUCED)
def test_pallas_reduced_precision_is_close_to_float32_and_not_equal(precision):
    reduced, full = _pallas_run(precision), _pallas_run("float32")
    names = ["hidden", "n", "d", "m", "d projected", "d kernel", "dh0"]
    for name, got, f32 in zip(names, reduced, full):
        _assert_within(got, f32, FROM_FLOAT32[precision], f"{name} against float32")
    for name, got, f32 in zip(names, reduced, full):
        if name in ("hidden", "d projected", "d kernel"):
            assert not np.array_equal(got, f32), f"{name}: no rounding happened"


def _kernel_dots(jaxpr):
    """`(precision, operand dtypes)` of every `dot_general` inside the
    `pallas_call`s of `jaxpr` (their kernels' jaxprs)."""
    found = []

    def visit(jaxpr, inside):
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "dot_general" and inside:
                dtypes = tuple(str(v.aval.dtype) for v in eqn.invars)
                found.append((str(eqn.params["precision"]), dtypes))
            for param in eqn.params.values():
                for sub in param if isinstance(param, (list, tuple)) else [param]:
                    sub = getattr(sub, "jaxpr", sub)
                    if hasattr(sub, "eqns"):
                        visit(sub, inside or eqn.primitive.name == "pallas_call")

    visit(jaxpr.jaxpr, False)
    return found


@pytest.mark.requires_backend("jax")
def test_pallas_dots_carry_the_precision_to_the_triton_lowering():
    """Traced for a GPU (not interpreted), the kernels' dots are HIGHEST
    (IEEE float32 in Pallas's Triton lowering) at float32, DEFAULT (TF32)
    on float32 operands at tf32, and on bfloat16 operands at bfloat16."""
    expected = {
        "float32": ("HIGHEST", ("float32", "float32")),
        "tf32": ("DEFAULT", ("float32", "float32")),
        "bfloat16": ("DEFAULT", ("bfloat16", "bfloat16")),
    }
    for precision, (name, dtypes) in expected.items():
        dots = _kernel_dots(_pallas_run(precision, interpret=False))
        assert len(dots) >= 2, dots  # the forward's and the backward's
        for found_precision, found_dtypes in dots:
            assert name in found_precision and found_dtypes == dtypes, (
                precision,
                dots,
            )


# ------------------------------------------------------------------ layers


@pytest.mark.requires_backend("jax", "torch")
@pytest.mark.parametrize("precision", REDUCED)
def test_the_layer_hands_its_precision_to_the_kernel(precision):
    """An RDA with the kernel at a reduced precision against today's path,
    same weights: outputs and gradients close, not equal."""
    from tests.layers.gradients import loss_and_gradients

    x = np.random.default_rng(0).normal(size=(3, 6, 4)).astype("float32")
    layers = [
        keras_rda.RDA(
            17,
            use_kernel=use_kernel,
            kernel_precision=precision,
            return_sequences=True,
        )
        for use_kernel in (True, False)
    ]
    for layer in layers:
        layer(x)
    layers[1].set_weights(layers[0].get_weights())

    def loss(outputs):
        return keras.ops.sum(outputs * keras.ops.arange(17, dtype="float32"))

    got, want = (loss_and_gradients(layer, x, loss) for layer in layers)
    outputs = [np.asarray(keras.ops.convert_to_numpy(layer(x))) for layer in layers]
    assert not np.array_equal(*outputs)
    _assert_within(*outputs, FROM_FLOAT32[precision], "outputs")
    for got_grad, want_grad in zip(got[2], want[2]):
        _assert_within(
            np.asarray(got_grad, "float64"),
            np.asarray(want_grad, "float64"),
            FROM_FLOAT32[precision],
            "gradients",
        )
