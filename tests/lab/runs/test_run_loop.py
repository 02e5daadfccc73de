"""`run_loop.train`: one run's curve, threshold, clipping and XLA warning."""

import pytest

from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.tasks import get_task

TINY = dict(steps=6, batch_size=4, units=3, eval_every=2, eval_examples=8, verbose=0)


def test_train_records_curve_and_threshold():
    task = get_task("reber", max_length=12)
    result = train(task, "gru", **TINY)
    assert [c["step"] for c in result.curve] == [2, 4, 6]
    assert set(result.final) >= {"loss", "accuracy"}
    # Accuracy is a multiple of 1/8 on 8 held-out sentences.
    assert result.final["accuracy"] * 8 == pytest.approx(
        round(result.final["accuracy"] * 8)
    )
    first = [c for c in result.curve if c["val_accuracy"] > 0.5]
    assert result.steps_to_threshold == (first[0]["step"] if first else None)
    assert result.params > 0 and not result.diverged


def test_clipnorm_reaches_the_optimizer_and_is_checked_first(tmp_path):
    task = get_task("reber", max_length=12)
    result = train(task, "gru", clipvalue=0.0, clipnorm=5.0, **TINY)
    assert result.keras_model.optimizer.clipnorm == 5.0
    assert result.keras_model.optimizer.clipvalue is None
    assert result.settings["clipnorm"] == 5.0
    # The zoo GRU clips element-wise at 1: refused before a checkpoint
    # directory is claimed, so a corrected rerun there is not a mismatch.
    with pytest.raises(ValueError, match="`clipnorm`"):
        train(task, "gru", clipnorm=5.0, checkpoint_dir=tmp_path / "run", **TINY)
    assert not (tmp_path / "run").exists()


def test_stop_at_threshold():
    task = get_task("addition", length=5)
    task.threshold = ("loss", "<", 1e9)  # met at the first evaluation
    result = train(
        task,
        "lstm",
        steps=10,
        batch_size=4,
        units=3,
        eval_every=2,
        eval_examples=8,
        verbose=0,
        stop_at_threshold=True,
    )
    assert result.steps_to_threshold == 2 and result.steps == 2


@pytest.mark.parametrize("learn_initial_state", [False, True])
def test_jit_warns_of_keras_rnns_returning_sequences(learn_initial_state):
    """Under TensorFlow's XLA a Keras LSTM returning sequences costs O(T^2)
    per sequence (README "Speed"): compiling one with `jit_compile` warns,
    on TensorFlow only; the RDA layer, a Keras LSTM that returns its last
    step, and no XLA do not warn."""
    import warnings

    import keras

    from keras_rda.lab.runs.run_loop import compile_for_task
    from keras_rda.lab.zoo.registry import get_model_spec

    def warned(model_name, task, jit_compile, **kwargs):
        spec = get_model_spec(model_name)
        model = spec.build(task, units=3, **kwargs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compile_for_task(model, task, spec.optimizer(), jit_compile)
        return [str(w.message) for w in caught if "O(T^2)" in str(w.message)]

    per_step = get_task("multicopy", num_copies=2, copy_length=2, block_length=6)
    last_step = get_task("classify-length", max_length=10)
    initial_state = dict(learn_initial_state=learn_initial_state)
    on_tensorflow = keras.backend.backend() == "tensorflow"
    for name, keras_name in [("lstm", "LSTM"), ("gru", "GRU")]:
        messages = warned(name, per_step, True, **initial_state)
        if on_tensorflow:
            assert len(messages) == 1
            assert f"Keras's {keras_name} '{name}'" in messages[0]
            assert "drop --jit" in messages[0]
        else:
            assert messages == []
    assert warned("lstm", per_step, False, **initial_state) == []
    assert warned("lstm", last_step, True, **initial_state) == []
    assert warned("rda", per_step, True) == []


@pytest.mark.tensorflow_only
def test_compile_for_task_makes_fit_trace_the_train_step_once():
    """A train step that creates the optimizer's variables is traced twice
    on TensorFlow (and XLA-compiled twice); `compile_for_task` builds them
    first, so one fit traces it once, where a plain compile traces it twice."""
    import numpy as np

    from keras_rda.lab.runs.run_loop import compile_for_task
    from keras_rda.lab.zoo.registry import get_model_spec

    task = get_task("multicopy", num_copies=2, copy_length=2, block_length=6)
    spec = get_model_spec("lstm")
    x, y, w = task.generate(8, np.random.default_rng(0))

    def traces(compile_model):
        model = spec.build(task, units=3)
        compile_model(model)
        count = []
        step = model.train_step

        def counted(data):
            count.append(1)
            return step(data)

        model.train_step = counted
        model.fit(x, y, sample_weight=w, epochs=1, batch_size=4, verbose=0)
        return len(count)

    assert traces(lambda m: compile_for_task(m, task, spec.optimizer())) == 1
    plain = dict(loss=task.loss, weighted_metrics=task.keras_metrics())
    assert traces(lambda m: m.compile(optimizer=spec.optimizer(), **plain)) == 2
