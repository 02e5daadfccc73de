"""Shared pytest configuration and fixtures.

Backends. The suite runs on the backend in `KERAS_BACKEND` (TensorFlow by
default). Tests that need TensorFlow itself carry the `tensorflow_only`
marker: by the lists below (one place, so that test modules stay as they
are) or by an explicit `@pytest.mark.tensorflow_only`. On any other backend
they are skipped, each with its reason, so that

    KERAS_BACKEND=jax pytest -n 2

runs exactly the backend-independent part. Checks that do not touch Keras
computations at all (the docs build, packaging) run once, in the TensorFlow
run.
"""

import os
import pathlib
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

# XLA compiles the tests' programs (every eager op on JAX, each
# `jit_compile` step on TensorFlow) with LLVM's lowest optimisation level:
# the programs are small and run once, so compiling is most of their time
# (the JAX run takes about a third less). XLA's own passes (fusion, layout)
# still run; a user's build can differ only in rounding (LLVM may fuse a
# multiply-add at higher levels), far inside the tests' tolerances, which
# the float64 references set. Subprocesses that the tests start inherit it.
_FAST_COMPILE = "--xla_backend_optimization_level=0"
if "--xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = " ".join(
        filter(None, (os.environ.get("XLA_FLAGS"), _FAST_COMPILE))
    )

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
BACKEND = keras.backend.backend()

if BACKEND == "torch":
    # The tests read results with `np.asarray(tensor)`, as they do on the other
    # backends. PyTorch refuses `numpy()` on a tensor that requires grad (every
    # output of a layer with trainable weights), so on PyTorch a tensor's
    # NumPy view detaches it first: a reading, never part of a gradient.
    import torch

    _torch_array = torch.Tensor.__array__

    def _detached_array(self, *args, **kwargs):
        return _torch_array(self.detach().cpu(), *args, **kwargs)

    torch.Tensor.__array__ = _detached_array

# Node-id prefixes (a directory, a module, or module::test, which covers its
# parametrisations) of tests that need TensorFlow, and why.
TENSORFLOW_ONLY = {
    "tests/lab/enwik8/": "the enwik8 loop: tf.function(jit_compile=True), "
    "tf.distribute, tf.train.Checkpoint",
    "tests/lab/cli/test_enwik8.py::test_enwik8_tiny_run_with_the_common_options": (
        "keras-rda enwik8 runs the TensorFlow-only enwik8 loop"
    ),
    "tests/lab/cli/test_enwik8.py::"
    "test_python_dash_m_training_is_the_enwik8_subcommand": (
        "keras-rda enwik8 runs the TensorFlow-only enwik8 loop"
    ),
    **{
        "tests/lab/cli/test_main.py::"
        f"test_user_errors_are_one_line_with_status_2[{case}]": (
            "an enwik8 error case: on another backend `keras-rda enwik8` answers "
            "first, in one line, that it needs TensorFlow"
        )
        for case in ("argv11---data", "argv12---steps")
    },
    "tests/test_notebooks.py::test_notebook_runs": "the notebooks run the "
    "enwik8 loop and load SavedModels with tf.saved_model",
}
# Known failures of a unit on one backend: strict xfail there, so that the
# run stays readable and a fix shows up as XPASS (then remove the entry).
KNOWN_BACKEND_FAILURES = {
    (
        "jax",
        "tests/cells/test_parallel_rda_cell.py::"
        "test_masked_steps_keep_the_state_and_repeat_the_output",
    ): "Keras's JAX rnn repeats states[0] on masked steps as the output; "
    "ParallelRDACell's states[0] is the scaled numerator, not its output "
    "(the state itself is kept right; the ParallelRDA layer is not affected)",
    (
        "jax",
        "tests/layers/test_parallel_rda.py::"
        "test_export_and_load_in_a_process_without_keras_rda",
    ): "model.export of a variable-length ParallelRDA on JAX: jax2tf traces "
    "a symbolic length, which the chunked scan compares with chunk_size in "
    "Python ('a < 4' is inconclusive)",
    **{
        ("torch", test): "model.export on PyTorch: Keras's export fails inside "
        "torch.export (a dynamic-shapes error); tests that also check a .keras "
        "round trip check only that on PyTorch (tests/helpers.py)"
        for test in (
            "tests/layers/test_feed_forward_attention.py::test_export_round_trip",
            "tests/layers/test_rda_saving.py::"
            "test_export_and_load_in_a_process_without_keras_rda",
            "tests/layers/test_parallel_rda.py::"
            "test_export_and_load_in_a_process_without_keras_rda",
        )
    },
    **{
        ("jax", f"tests/test_contract.py::test_masked_padding_is_ignored[{unit}]"): (
            "Keras's JAX rnn gives states[0] as the output of trailing masked "
            "steps; this unit's states[0] is not its output (e.g. the memory "
            "cells' step counter, ParallelRDACell's scaled numerator), so the "
            "last output differs from the unpadded run's"
        )
        for unit in (
            "WeiNetCell",
            "DNCCell-regular",
            "DNCCell-uniform",
            "DNCCell-cached_uniform",
            "DNCCell-random",
            "NTMCell-regular",
            "NTMCell-uniform",
            "ParallelRDACell",
            "DNC-uniform",
            "NTM-regular",
        )
    },
}
# Tests that are slow on one backend only: marked `slow` there (so the
# default run leaves them to `pytest -m slow`), run as usual elsewhere. On
# PyTorch `jit_compile=True` is `torch.compile`, whose tracing of a Keras
# recurrent model takes about a minute per shape on a CPU (Keras's own LSTM
# as long); one such fit (`test_fit_with_jit_compile[rda-layer]`) stays in
# the default run.
SLOW_ON_BACKEND = {
    **{
        ("torch", test): "torch.compile traces the model once per shape, "
        "about a minute each on a CPU"
        for test in (
            "tests/layers/test_rda_saving.py::test_fit_with_jit_compile[rnn-rda-cell]",
        )
    },
    # On PyTorch the fused recurrence's loop is Python: 10,000 steps forward
    # and backward take about a minute a case on a CPU. Every attention's
    # arithmetic at that length is checked in the TensorFlow and JAX runs;
    # here exp's running maximum (through the in-loop projection and as a
    # plain average) and the RWA keep a case.
    **{
        ("torch", test): "PyTorch's Python loop, about a minute a case at "
        "10,000 steps; checked in the TensorFlow and JAX runs"
        for test in (
            *(
                "tests/ops/test_rda_recurrence.py::"
                f"test_ten_thousand_steps_with_huge_logits_finite[{case}]"
                for case in (
                    "inputs-rda-exp",
                    "inputs-rda-relu",
                    "inputs-rda-softplus",
                    "projections-rda-relu",
                    "projections-rda-softplus",
                )
            ),
            *(
                "tests/ops/test_attention_average.py::"
                "test_ten_thousand_steps_with_huge_logits_finite_outputs_and_"
                f"gradients[rda-{attention}]"
                for attention in ("relu", "sigmoid", "softplus")
            ),
        )
    },
    # On JAX an op outside `jit` compiles on its first call, so tests that
    # call a layer eagerly take several times their TensorFlow time: the
    # grids and long sequences below run in full in the TensorFlow run, and
    # the JAX run keeps a case of each code path (the default attention and
    # exp's running maximum, each scan method, the RDA layer's kernel).
    **{
        ("jax", f"tests/layers/test_parallel_rda.py::{test}"): "JAX compiles each "
        "eager op; the TensorFlow run checks it, and a smaller case of the same "
        "path runs here"
        for test in (
            "test_ten_thousand_steps_match_reference_and_cell",
            "test_no_nan_or_inf_for_ten_thousand_steps_with_huge_logits[exp]",
            "test_unknown_batch_and_length_train_and_predict[False]",
            "test_gradients_equal_rnn_of_cell[associative]",
            "test_two_chained_segments_equal_one_run[chunked]",
            "test_stateful_calls_chain",
            "test_mixed_precision_keeps_sums_in_float32",
            *(
                "test_layer_equals_rnn_of_cell_with_masks"
                f"[{attention}-{length}-{chunk}-{method}]"
                for attention in ("softplus", "relu")
                for length, chunk in (
                    (1, 8),
                    (7, 8),
                    (8, 8),
                    (29, 8),
                    (50, 64),
                    (70, 4),
                    (300, 4),
                )
                for method in ("chunked", "associative")
            ),
            # The default attention at one length per chunk layout (one
            # step, several chunks, chunk carries in blocks of blocks), exp's
            # running maximum at several chunks.
            *(
                "test_layer_equals_rnn_of_cell_with_masks"
                f"[{attention}-{length}-{chunk}-{method}]"
                for attention, length, chunk in (
                    *(
                        (attention, length, chunk)
                        for attention in ("sigmoid", "exp")
                        for length, chunk in ((7, 8), (8, 8), (50, 64), (70, 4))
                    ),
                    ("exp", 1, 8),
                    ("exp", 300, 4),
                )
                for method in ("chunked", "associative")
            ),
        )
    },
    **{
        ("jax", test): "JAX compiles each eager op; the TensorFlow run checks it"
        for test in (
            "tests/ops/test_attention_average.py::"
            "test_mixed_precision_training_stays_finite",
        )
    },
    # The Pallas kernels run only with use_kernel=True (never under "auto",
    # keras_rda.ops.kernels.NEVER_AUTO); in Pallas's interpreter the RDA
    # layer's cases cover the recurrence, and ParallelRDA's and RWA's the
    # scan and the RWA flag in the slow run.
    **{
        ("jax", f"tests/layers/test_kernel_layers.py::{test}[{layer}]"): (
            "Pallas's interpreter, 20-45 s a case; the RDA layer's case runs"
        )
        for test in (
            "test_every_output_and_state_with_their_gradients",
            "test_large_logits_stay_finite_and_equal",
            "test_masks_with_leading_inner_and_trailing_padding",
        )
        for layer in ("RWA", "ParallelRDA")
    },
    ("jax", "tests/layers/test_kernel_layers.py::test_mixed_precision[ParallelRDA]"): (
        "Pallas's interpreter, 20 s; the RDA layer's case runs"
    ),
}
# Tests that take 25 s or more of a CI core on every backend, each of which
# repeats, at a larger size or through one more process, a check that a
# faster test makes in the default run: marked `slow` (run them with
# `pytest -m slow` before a release or after changing what they cover).
SLOW = {
    "tests/memory/test_memory_layers.py::"
    "test_interval_loop_trains_under_xla_and_round_trips": "XLA compiles the "
    "interval loop's gradient (90 s); test_interval_loop_equals_rnn_of_its_cell "
    "checks its values and gradients",
    "tests/memory/test_memory_layers.py::"
    "test_keras_file_and_savedmodel_round_trips[dnc-cached_uniform]": "a "
    "SavedModel of Cached Uniform Writing's loops (70 s); the NTM case exports "
    "the same base layer",
    "tests/memory/test_memory_layers.py::"
    "test_trains_on_a_stream_of_unknown_shape[dnc]": "the NTM case runs the "
    "same base layer on the same stream",
    "tests/memory/test_memory_layers.py::"
    "test_trains_under_xla_with_every_schedule[dnc-random]": "random writing, "
    "the UW paper's baseline, is the regular loop at other steps; the three "
    "other schedules compile in the default run",
    "tests/memory/test_dnc_cell.py::test_trains_with_model_fit": "tracing the "
    "cell's Cached Uniform Writing branches in keras.layers.RNN (35 s); "
    "tests/test_backends.py trains the memory cells in keras.layers.RNN",
    "tests/layers/test_parallel_rda.py::"
    "test_export_and_load_in_a_process_without_keras_rda": "the same export as "
    "the RDA layer's test in tests/layers/test_rda_saving.py, in a second "
    "process (50 s)",
    "tests/layers/test_parallel_rda.py::"
    "test_unknown_batch_and_length_train_and_predict[True]": "XLA compiles a "
    "program per shape (40 s); the False case trains the same shapes",
    "tests/layers/test_parallel_rda.py::test_associative_scan_with_unknown_batch": (
        "tracing the associative scan of an unknown length (35 s); "
        "test_layer_equals_rnn_of_cell_with_masks checks the scan's values"
    ),
    "tests/lab/runs/test_multi_worker.py::test_two_workers_resumed_equal_one_process": (
        "three processes with a TensorFlow cluster (75 s); "
        "tests/lab/enwik8/test_replica_rows.py checks two replicas' rows in "
        "one process"
    ),
    **{
        "tests/test_backends.py::test_unit_trains_and_round_trips_on_this_backend"
        f"[{unit}]": "test_contract's training step trains DNC-uniform and "
        "DNCCell-cached_uniform on every backend"
        for unit in ("DNCCell+UniformWriting", "DNCCell+CachedUniformWriting")
    },
    "tests/layers/test_rda_saving.py::test_fit_with_jit_compile[rwa-layer]": (
        "the RWA layer runs the RDA layer's fused loop, whose fit under "
        "jit_compile is the rda-layer case"
    ),
    "tests/lab/runs/test_data_parallel.py::"
    "test_data_parallel_on_two_devices_equals_one_device": "three runs on two "
    "JAX devices in a second process (85 s); "
    "tests/lab/enwik8/test_jax_loop.py checks data parallelism on two devices",
}
# Checks that do not depend on the backend, run once (in the TensorFlow run).
BACKEND_INDEPENDENT = {
    "tests/test_docs.py": "the docs build does not depend on the backend",
    "tests/test_packaging.py": "packaging does not depend on the backend",
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "tensorflow_only(reason): needs TensorFlow itself (tf.data, tf.GradientTape, "
        "SavedModel loading, the enwik8 loop, tf.distribute, tensorflow-datasets); "
        "skipped on other backends",
    )
    config.addinivalue_line(
        "markers",
        "requires_backend(*names): a test of some backends' own code (a Pallas "
        "kernel on JAX, a Triton kernel on PyTorch); deselected in the other "
        "backends' runs, since those backends' runs cover it",
    )


def _matches(nodeid, prefix):
    if prefix.endswith(("/", ".py")):
        return nodeid.startswith(prefix)
    return nodeid == prefix or nodeid.startswith(prefix + "[")


def pytest_collection_modifyitems(config, items):
    _deselect_other_backends(config, items)
    used = set()
    for item in items:
        for prefix, reason in TENSORFLOW_ONLY.items():
            if _matches(item.nodeid, prefix):
                used.add(prefix)
                item.add_marker(pytest.mark.tensorflow_only(reason=reason))
        for prefix, reason in BACKEND_INDEPENDENT.items():
            if _matches(item.nodeid, prefix):
                used.add(prefix)
                if BACKEND != "tensorflow":
                    item.add_marker(pytest.mark.skip(reason=f"runs once: {reason}"))
        for (backend, prefix), reason in KNOWN_BACKEND_FAILURES.items():
            if _matches(item.nodeid, prefix):
                used.add(prefix)
                if backend == BACKEND:
                    item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        for prefix, reason in SLOW.items():
            if _matches(item.nodeid, prefix):
                used.add(prefix)
                item.add_marker(pytest.mark.slow(reason=reason))
        for (backend, prefix), reason in SLOW_ON_BACKEND.items():
            if _matches(item.nodeid, prefix):
                used.add(prefix)
                if backend == BACKEND:
                    item.add_marker(pytest.mark.slow(reason=reason))
        marker = item.get_closest_marker("tensorflow_only")
        if marker and BACKEND != "tensorflow":
            reason = marker.kwargs.get("reason", "needs TensorFlow")
            item.add_marker(pytest.mark.skip(reason=f"TensorFlow-only: {reason}"))
    # An entry whose module was collected but which matched nothing is stale
    # (a renamed test): say so instead of silently running it everywhere.
    collected = {item.nodeid.split("::")[0] for item in items}
    known = {prefix for _, prefix in (*KNOWN_BACKEND_FAILURES, *SLOW_ON_BACKEND)}
    known |= set(SLOW)
    for prefix in {*TENSORFLOW_ONLY, *BACKEND_INDEPENDENT, *known}:
        module = prefix.split("::")[0]
        if module in collected and prefix not in used:
            warnings.warn(
                f"tests/conftest.py lists {prefix!r}, which matches no test",
                stacklevel=1,
            )


def _deselect_other_backends(config, items):
    """Drops the tests marked `requires_backend(*names)` for other backends.

    A kernel written for one backend (Pallas on JAX, Triton on PyTorch) is
    tested in that backend's run of the suite; the other runs deselect it
    rather than skip it, so a skip in a run still means something is
    missing. Triton is never imported in a TensorFlow process (see
    `keras_rda.ops.kernels`).
    """
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("requires_backend")
        if marker is not None and BACKEND not in marker.args:
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(autouse=True)
def _fresh_keras_session():
    """Each test starts from a clean Keras state and a float32 policy.

    Without a forced garbage collection: `clear_session()`'s `gc.collect()`
    walks every object the process holds, and TensorFlow keeps each traced
    function's objects, so a worker's heap grows through the suite and the
    collection took seconds per test by its end. Python's own collector
    still frees the cycles as they accumulate.
    """
    keras.backend.clear_session(free_memory=False)
    keras.config.set_dtype_policy("float32")
    keras.utils.set_random_seed(1234)
    yield
    keras.config.set_dtype_policy("float32")
    if BACKEND == "jax":
        _release_jax_executables()


def _memory_mappings():
    """How many memory mappings this process holds (Linux), else None."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            return sum(1 for _ in maps)
    except OSError:
        return None


def _release_jax_executables(limit=30_000):
    """Drops JAX's compiled executables once the process holds `limit`
    memory mappings.

    JAX keeps every executable it compiles (each eager op of a layer called
    outside `jit` is one) for the life of the process, and each holds
    memory mappings of its own: a memory layer called eagerly with its
    gradient adds about 750. A worker that ran the suite's memory tests on
    JAX reached Linux's limit (`vm.max_map_count`, 65,530 by default), where
    XLA's compiler segfaults inside `backend_compile_and_load`.
    `jax.clear_caches()` frees them; later tests only compile again.
    """
    count = _memory_mappings()
    if count is not None and count > limit:
        import jax

        jax.clear_caches()


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def data_dir():
    """The shared real data directory (`KERAS_RDA_DATA_DIR`), or skip."""
    path = os.environ.get("KERAS_RDA_DATA_DIR")
    if not path or not pathlib.Path(path).is_dir():
        pytest.skip("KERAS_RDA_DATA_DIR is not set to a directory of real data")
    return pathlib.Path(path)
