"""The enwik8 loop on JAX against the TensorFlow loop, and its resume.

The backend is fixed per process, so each side runs in a subprocess: the
TensorFlow loop (whose bits per character are checked against NumPy in
test_enwik8_trainer.py) saves its initial weights, the JAX loop loads them,
and both train the same two segments: the first segment's loss, the
second's (after one clipped Adam update, from the carried state) and the
state carried out of it must agree to float32 tolerance. A JAX run stopped
and resumed from its checkpoint must equal one run straight through, and a
data-parallel JAX run over two virtual CPU devices the one-device run.
Each test is one or two fresh processes of ~15 s of CPU (tiny preset).
"""

import json
import os
import subprocess
import sys

import numpy as np

from tests.conftest import REPO_ROOT
from tests.helpers import TWO_CPU_DEVICES_XLA_FLAGS
from tests.lab.enwik8.conftest import run_script

# argv: out_dir, weights file, "save" or "load", model, steps.
TRAIN_SCRIPT = """
import json, sys
import numpy as np
from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from keras_rda.lab.enwik8.presets import get_preset
from tests.lab.enwik8.conftest import make_data

out, weights, mode, model, steps = sys.argv[1:6]
preset = get_preset("tiny", log_every=1, checkpoint_every=1000)
trainer = Enwik8Trainer(make_data(), out, model=model, preset=preset, verbose=0)
if mode == "save":
    trainer.model.save_weights(weights)
else:
    trainer.model.load_weights(weights)
trainer.train(steps=int(steps), final_eval=False)
print("REPORT" + json.dumps({
    "backend": trainer.backend,
    "bpc": [h["train/bpc"] for h in trainer.history()],
    "state": [np.asarray(v.numpy()).tolist() for v in trainer.checkpoint.carried_state],
    "weights": [np.asarray(w.numpy()).tolist() for w in trainer.model.weights],
}))
"""


def test_jax_equals_tensorflow_from_the_same_weights(tmp_path):
    weights = tmp_path / "initial.weights.h5"
    args = (weights, "rda", 2)
    tf_run = run_script(
        TRAIN_SCRIPT,
        tmp_path / "tf",
        args[0],
        "save",
        *args[1:],
        KERAS_BACKEND="tensorflow",
    )
    jax_run = run_script(
        TRAIN_SCRIPT,
        tmp_path / "jax",
        args[0],
        "load",
        *args[1:],
        KERAS_BACKEND="jax",
    )
    assert (tf_run["backend"], jax_run["backend"]) == ("tensorflow", "jax")
    # The runs are not trivially alike: the state moved off zero and the
    # update changed the loss (the state of two small steps is of order 1e-4).
    assert np.abs(np.array(tf_run["state"][0])).max() > 1e-5
    assert tf_run["bpc"][0] != tf_run["bpc"][1]
    np.testing.assert_allclose(jax_run["bpc"], tf_run["bpc"], rtol=1e-5)
    for jax_state, tf_state in zip(jax_run["state"], tf_run["state"], strict=True):
        np.testing.assert_allclose(jax_state, tf_state, rtol=1e-4, atol=1e-5)
    for jax_w, tf_w in zip(jax_run["weights"], tf_run["weights"], strict=True):
        np.testing.assert_allclose(jax_w, tf_w, rtol=1e-4, atol=1e-5)


RESUME_SCRIPT = """
import json, sys
import numpy as np
from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from keras_rda.lab.enwik8.presets import get_preset
from tests.lab.enwik8.conftest import make_data

root = sys.argv[1]
preset = get_preset("tiny", log_every=1, checkpoint_every=1000)
data = make_data()

def trainer(name):
    return Enwik8Trainer(data, f"{root}/{name}", model="rda", preset=preset, verbose=0)

def snapshot(t):
    return {
        "bpc": [h["train/bpc"] for h in t.history()],
        "state": [np.asarray(v.numpy()).tolist() for v in t.checkpoint.carried_state],
        "weights": [np.asarray(w.numpy()).tolist() for w in t.model.weights],
        "optimizer": [np.asarray(w.numpy()).tolist() for w in t.optimizer.variables],
        "step": int(t.step.numpy()),
    }

straight = trainer("straight")
straight.train(steps=5, final_eval=False)
first = trainer("resumed")
first.train(steps=2, final_eval=False)
second = trainer("resumed")  # restores step 2
restored_from = second.restored_from
second.train(steps=5, final_eval=False)
print("REPORT" + json.dumps({
    "backend": second.backend,
    "restored_from": restored_from,
    "straight": snapshot(straight),
    "resumed": snapshot(second),
}))
"""


def test_resumed_jax_run_equals_an_uninterrupted_one(tmp_path):
    report = run_script(RESUME_SCRIPT, tmp_path, KERAS_BACKEND="jax")
    assert report["backend"] == "jax"
    assert report["restored_from"].endswith("ckpt-2.npz")
    straight, resumed = report["straight"], report["resumed"]
    assert resumed["step"] == straight["step"] == 5
    assert len(resumed["bpc"]) == 5  # steps 1-2, then 3-5: none repeated
    for key in ("bpc", "state", "weights", "optimizer"):
        for a, b in zip(resumed[key], straight[key], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=key)


DATA_PARALLEL_SCRIPT = """
import json, sys
import numpy as np
from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from keras_rda.lab.enwik8.presets import get_preset
from keras_rda.lab.strategies import make_strategy
from tests.lab.enwik8.conftest import make_data

root = sys.argv[1]
preset = get_preset("tiny", log_every=1, checkpoint_every=1000)
data = make_data()
runs = {}
for name, strategy in (
    ("one", None),
    ("two", make_strategy("data-parallel")),
):
    t = Enwik8Trainer(data, f"{root}/{name}", model="rda", preset=preset,
                      strategy=strategy, verbose=0)
    t.train(steps=3, final_eval=False)
    runs[name] = {
        "replicas": t.num_replicas,
        "bpc": [h["train/bpc"] for h in t.history()],
        "state": [np.asarray(v.numpy()).tolist() for v in t.checkpoint.carried_state],
        "valid": t.evaluate("valid", max_chars=200),
        "devices": len(t._parts.distribute([np.zeros((4, 3))], 4)[0].devices()),
    }
print("REPORT" + json.dumps(runs))
"""


def test_data_parallel_jax_equals_one_device(tmp_path):
    runs = run_script(
        DATA_PARALLEL_SCRIPT,
        tmp_path,
        KERAS_BACKEND="jax",
        XLA_FLAGS=TWO_CPU_DEVICES_XLA_FLAGS,
    )
    one, two = runs["one"], runs["two"]
    assert (one["replicas"], two["replicas"]) == (1, 2)
    assert (one["devices"], two["devices"]) == (1, 2)  # the rows are split
    np.testing.assert_allclose(two["bpc"], one["bpc"], rtol=1e-5)
    np.testing.assert_allclose(two["valid"], one["valid"], rtol=1e-5)
    for a, b in zip(two["state"], one["state"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_the_command_on_jax_with_data_parallel(tmp_path):
    """`keras-rda enwik8` on JAX over two devices: it trains, evaluates,
    checkpoints (.npz, no TensorBoard) and adds the run to the record."""
    data = tmp_path / "sample.txt"
    data.write_bytes(b"<mediawiki the cat sat on the mat. " * 200)
    argv = ["enwik8", "--data", str(data), "--scale", "tiny", "--steps", "2"]
    argv += ["--model", "gru", "--strategy", "data-parallel", "--verbose", "0"]
    argv += ["--out", str(tmp_path / "run"), "--results-dir", str(tmp_path / "rec")]
    env = dict(
        os.environ,
        KERAS_BACKEND="jax",
        XLA_FLAGS=TWO_CPU_DEVICES_XLA_FLAGS,
        PYTHONPATH=str(REPO_ROOT),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "keras_rda.lab.cli", *argv],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "gru: valid BPC" in proc.stdout
    result = json.loads((tmp_path / "run" / "results.json").read_text())
    assert result["step"] == 2 and 0 < result["test_bpc"] < 9
    assert (tmp_path / "run" / "checkpoints" / "ckpt-2.npz").exists()
    assert not (tmp_path / "run" / "tensorboard").exists()
    record = json.loads((tmp_path / "rec" / "enwik8-tiny.json").read_text())
    assert record["runs"]["gru"]["test_bpc"] == result["test_bpc"]
