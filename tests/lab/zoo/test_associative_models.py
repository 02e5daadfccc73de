"""Zoo entries of the WeiNet paper's associative recall comparison."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo import get_model_spec


@pytest.mark.parametrize("name", ["weinet", "weinet-rc", "fw-ln", "lstm-ln", "rhn"])
def test_paper_settings_and_shapes(name, rng):
    spec = get_model_spec(name)
    assert (spec.learning_rate, spec.clipvalue, spec.batch_size, spec.units) == (
        1e-4,
        5.0,
        128,
        50,
    )
    task = get_task("associative-recall", length=9)
    model = spec.build(task, units=6)
    x, y, _ = task.generate(3, rng)
    model.compile(spec.optimizer(), task.loss)
    assert model(x).shape == (3, 10)
    loss = model.train_on_batch(x, y)
    assert np.isfinite(loss)


def test_lstm_is_registered_for_the_comparison():
    assert get_model_spec("lstm").name == "lstm"


@pytest.mark.parametrize("name", ["weinet", "weinet-rc"])
def test_weinet_models_pass_the_decay_initializer(name):
    # `--model-arg decay_initializer=...` reaches the cell (W_A of eq. 5).
    spec = get_model_spec(name)
    init = {"class_name": "Constant", "config": {"value": 0.5}}
    assert spec.check_arguments({"decay_initializer": init}) == {
        "decay_initializer": init
    }
    task = get_task("associative-recall", length=9)
    cell = spec.build(task, units=4, decay_initializer=init).get_layer("rnn").cell
    decay = cell.memory_weights["decay"]
    values = [np.asarray(v) for v in (decay if isinstance(decay, tuple) else [decay])]
    assert all(np.all(v == 0.5) for v in values)
    default = spec.build(task, units=4).get_layer("rnn").cell
    assert default.decay_initializer is None
