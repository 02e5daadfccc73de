"""`--strategy data-parallel` on JAX: two virtual CPU devices, one device's
result.

Runs in a subprocess, because the device count of JAX's CPU platform
(`XLA_FLAGS=--xla_force_host_platform_device_count=2`) is fixed when JAX
starts. The run is the same model, seed and global batch once on one device
("default") and once split over both; data parallelism changes where rows
are computed, not the mathematics, so the two agree within float32
round-off (sums in another order). A data-parallel run stopped halfway and
resumed from its checkpoint continues exactly as the uninterrupted one.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import REPO_ROOT
from tests.helpers import TWO_CPU_DEVICES_XLA_FLAGS

SCRIPT = r"""
import json, sys
import numpy as np
import keras
from keras.src.backend.jax import distribution_lib as jax_distribution

from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.tasks import get_task

# Record how Keras places each batch it feeds (rows per device).
placed = []
_put = jax_distribution.distribute_data_input
def counting_put(batch, layout, batch_dim_name):
    out = _put(batch, layout, batch_dim_name)
    placed.append([s.data.shape[0] for s in out.addressable_shards])
    return out
jax_distribution.distribute_data_input = counting_put

def run(strategy, steps=4, checkpoint_dir=None):
    return train(
        get_task("copy", length=8, num_symbols=4, copy_length=3), "rda",
        steps=steps, batch_size=8, units=8, eval_every=2, eval_examples=20,
        seed=3, strategy=strategy, verbose=0, checkpoint_dir=checkpoint_dir,
    )

out = {"devices": len(keras.distribution.list_devices())}
for strategy in ("default", "data-parallel"):
    placed.clear()
    result = run(strategy)
    model = result.keras_model
    out[strategy] = {
        "curve": result.curve,
        "strategy": result.settings["strategy"],
        "weights": [np.asarray(w).tolist() for w in model.get_weights()],
        "variable_devices": sorted(
            {len(v.value.sharding.device_set) for v in model.weights}
        ),
        "placed": sorted({tuple(p) for p in placed}),
    }
# Stopped after step 2, then resumed from its checkpoint to step 4.
run("data-parallel", 2, sys.argv[1])
out["resumed"] = run("data-parallel", 4, sys.argv[1]).curve
print("RESULT" + json.dumps(out))
"""


def run_on_two_devices(script, *args, timeout=150):
    """Runs `script` with JAX on two virtual CPU devices; its RESULT line."""
    env = dict(
        os.environ,
        KERAS_BACKEND="jax",
        XLA_FLAGS=TWO_CPU_DEVICES_XLA_FLAGS,
        JAX_PLATFORMS="cpu",
        PYTHONPATH=str(REPO_ROOT),
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT"))
    return json.loads(line[len("RESULT") :])


def test_data_parallel_on_two_devices_equals_one_device(tmp_path):
    out = run_on_two_devices(SCRIPT, tmp_path / "checkpoints")
    assert out["devices"] == 2
    one, two = out["default"], out["data-parallel"]
    assert (one["strategy"], two["strategy"]) == ("default", "data-parallel")
    # One device: variables on one device, nothing split. Two: every
    # variable replicated on both, every batch of 8 (training) and 20
    # (held-out) split into equal halves.
    assert one["variable_devices"] == [1] and one["placed"] == []
    assert two["variable_devices"] == [2]
    assert two["placed"] == [[4, 4], [10, 10]]
    for a, b in zip(one["weights"], two["weights"], strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
    assert [c["step"] for c in one["curve"]] == [c["step"] for c in two["curve"]]
    for a, b in zip(one["curve"], two["curve"], strict=True):
        for key in ("loss", "val_loss", "val_accuracy"):
            assert b[key] == pytest.approx(a[key], rel=1e-4, abs=1e-6), key
    # A resumed data-parallel run continues as the uninterrupted one.
    assert out["resumed"] == two["curve"]
