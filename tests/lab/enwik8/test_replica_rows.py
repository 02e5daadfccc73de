"""Row blocks per replica: MirroredStrategy over two logical CPUs gives the
default strategy's run (training, carried state, evaluation).

Logical devices must be configured before TensorFlow initialises, so both
runs happen in a fresh subprocess.
"""

import textwrap

import numpy as np

from tests.lab.enwik8.conftest import run_script

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    import numpy as np
    from keras_rda.lab.enwik8 import replica_rows
    from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
    from keras_rda.lab.enwik8.presets import get_preset
    from keras_rda.lab.strategies import make_strategy
    from tests.lab.enwik8.conftest import make_data

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
            "state": [
                v.numpy().ravel().tolist() for v in trainer.checkpoint.carried_state
            ],
            "valid_bpc": trainer.evaluate("valid"),
        }
    # distribute then gather is the identity; replica i holds rows block i.
    rows = np.arange(24, dtype=np.float32).reshape(6, 4)
    mirrored = make_strategy("mirrored")
    parts = replica_rows.distribute(mirrored, [rows], 6)
    blocks = [t.numpy().tolist() for t in mirrored.experimental_local_results(parts[0])]
    back = replica_rows.gather(mirrored, parts)[0].numpy()
    report["rows"] = {"blocks": blocks, "gathered": back.tolist()}
    print("REPORT" + json.dumps(report))
    """
)


def test_mirrored_two_cpus_matches_default(tmp_path):
    report = run_script(SCRIPT, tmp_path)
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
    rows = np.arange(24).reshape(6, 4)
    np.testing.assert_array_equal(report["rows"]["gathered"], rows)
    np.testing.assert_array_equal(report["rows"]["blocks"], [rows[:3], rows[3:]])
