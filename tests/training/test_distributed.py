"""MirroredStrategy over two logical CPUs gives the default strategy's run.

Logical devices must be configured before TensorFlow initialises, so both
runs happen in a fresh subprocess.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

from tests.conftest import REPO_ROOT

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from keras_rda.training.enwik8_trainer import Enwik8Trainer
    from keras_rda.training.presets import get_preset
    from keras_rda.utils.strategies import make_strategy
    from tests.training.conftest import make_data

    out = sys.argv[1]
    data = make_data(n=1000)
    preset = get_preset("tiny", log_every=1, checkpoint_every=1000)
    report = {}
    for name in ("default", "mirrored"):
        strategy = make_strategy(name)
        trainer = Enwik8Trainer(data, f"{out}/{name}", model="lstm",
                                preset=preset, strategy=strategy, verbose=0)
        trainer.train(steps=4, final_eval=False)
        history = [json.loads(l) for l in open(f"{out}/{name}/history.jsonl")]
        report[name] = {
            "replicas": strategy.num_replicas_in_sync,
            "bpc": [h["train/bpc"] for h in history],
            "weights": [v.numpy().ravel().tolist() for v in trainer.model.weights],
            "state": [v.numpy().ravel().tolist() for v in trainer._saved_state],
            "valid_bpc": trainer.evaluate("valid"),
        }
    print("REPORT" + json.dumps(report))
    """
)


def test_mirrored_two_cpus_matches_default(tmp_path):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    line = [s for s in lines if s.startswith("REPORT")][-1]
    report = json.loads(line[len("REPORT") :])
    default, mirrored = report["default"], report["mirrored"]
    assert default["replicas"] == 1 and mirrored["replicas"] == 2
    assert len(default["bpc"]) == 4
    np.testing.assert_allclose(mirrored["bpc"], default["bpc"], rtol=1e-5)
    for a, b in zip(mirrored["weights"], default["weights"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    # Each replica carried its own rows; gathered, they are the same state.
    for a, b in zip(mirrored["state"], default["state"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(mirrored["valid_bpc"], default["valid_bpc"], rtol=1e-5)
