"""`keras_rda.lab.diagnostics.weinet_memory_gradient`: its per-step split of
dL/dW_h and its recurrent paths, against the cell's own gradient."""

import json

import keras
import numpy as np
import pytest

from keras_rda.lab.diagnostics import weinet_memory_gradient as diagnostic
from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo.registry import get_model_spec

pytestmark = pytest.mark.tensorflow_only


def small_model(memory_clip=100.0, seed=0):
    """A 6-unit element-wise WeiNet on length-9 recall, and one batch."""
    keras.utils.set_random_seed(seed)
    task = get_task("associative-recall", length=9)
    net = get_model_spec("weinet").build(task, units=6, memory_clip=memory_clip)
    x, y, _ = task.generate(4, np.random.default_rng(seed))
    return net, x, y


def cell_write_gradient(net, x, y):
    """dL/dW_h of the summed loss through the Keras model itself."""
    import tensorflow as tf

    write = net.get_layer("rnn").cell.memory_weights["write"]
    with tf.GradientTape() as tape:
        logits = net(x)
        loss = tf.reduce_sum(
            keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
        )
    return tape.gradient(loss, write).numpy()


@pytest.mark.parametrize("memory_clip", [100.0, 0.05, None])
def test_the_steps_parts_sum_to_the_cells_gradient(memory_clip):
    net, x, y = small_model(memory_clip)
    cell, readout = net.get_layer("rnn").cell, net.get_layer("readout")
    grads, _, _ = diagnostic.step_gradients(cell, readout, x, y)
    assert grads.shape == (9, 4, 1, 6, 6)
    np.testing.assert_allclose(
        grads.sum(axis=(0, 1)), cell_write_gradient(net, x, y), rtol=1e-4, atol=1e-6
    )


def test_without_decay_the_memory_path_carries_nothing_back():
    """With W_A = W_AH = 0, A_t forgets A_{t-1}: the memory path leaves only
    the query step's write, and the controller path is the whole gradient."""
    net, x, y = small_model()
    cell, readout = net.get_layer("rnn").cell, net.get_layer("readout")
    for term in ("decay", "cross"):
        weight = cell.memory_weights[term]
        weight.assign(np.zeros(weight.shape, "float32"))
    memory, _, _ = diagnostic.step_gradients(cell, readout, x, y, "memory")
    controller, _, _ = diagnostic.step_gradients(cell, readout, x, y, "controller")
    both, _, _ = diagnostic.step_gradients(cell, readout, x, y, "both")
    assert np.abs(memory[:-1]).max() == 0.0 and np.abs(memory[-1]).max() > 0.0
    np.testing.assert_allclose(controller, both, rtol=1e-5, atol=1e-8)
    assert np.abs(both[:-1]).max() > 0.0


def test_the_record_names_each_setting(tmp_path):
    path = tmp_path / "gradient.json"
    diagnostic.main(
        ["--models", "weinet", "--lengths", "9", "--seeds", "0",
         "--batch-size", "4", "--memory-clip", "none", "--path", "memory",
         "--json", str(path)]
    )  # fmt: skip
    record = json.loads(path.read_text())
    (row,) = record["rows"]
    assert row[:5] == ["weinet", "0.1 (appendix)", "none", "memory only", "9"]
    assert len(row) == len(record["columns"]) and record["seeds"] == [0]
    ((argv, env),) = [(c["argv"], c["env"]) for c in record["commands"]]
    assert record["kind"] == "table" and set(env) == {"KERAS_BACKEND"}
    assert argv[0] == "python"
    assert "--memory-clip none" in " ".join(argv)
