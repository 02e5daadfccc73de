"""Checkpoints: interrupting a run (SIGTERM) and rerunning it gives the
uninterrupted run; a checkpoint round trip; a different run is refused."""

import os
import signal
import threading

import numpy as np

from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from tests.lab.enwik8.conftest import make_data


def snapshot(trainer):
    return {
        "model": [v.numpy() for v in trainer.model.weights],
        "optimizer": [v.numpy() for v in trainer.optimizer.variables],
        "state": [v.numpy() for v in trainer.checkpoint.carried_state],
        "step": int(trainer.step.numpy()),
    }


def test_interrupt_and_resume_equals_uninterrupted(tiny_preset, tmp_path):
    # 450 training bytes in 4 rows of 112: 11 segments of 10 per epoch, so 14
    # steps cross an epoch boundary (the state resets there).
    data = make_data(n=500)
    steps, stop_at = 14, 6

    reference = Enwik8Trainer(
        data, tmp_path / "a", model="gru", preset=tiny_preset, verbose=0
    )
    assert reference.segments_per_epoch == 11
    reference.train(steps=steps, final_eval=False)
    expected = snapshot(reference)

    first = Enwik8Trainer(
        data, tmp_path / "b", model="gru", preset=tiny_preset, verbose=0
    )

    def interrupt(step):
        if step == stop_at:
            if threading.current_thread() is threading.main_thread():
                os.kill(os.getpid(), signal.SIGTERM)  # handled: flag, then save
            else:
                first.request_stop()

    previous_handler = signal.getsignal(signal.SIGTERM)
    result = first.train(steps=steps, on_step=interrupt, final_eval=False)
    assert result["interrupted"] and result["step"] == stop_at
    assert signal.getsignal(signal.SIGTERM) == previous_handler  # restored

    # "Rerun the same command": a new trainer on the same directory.
    second = Enwik8Trainer(
        data, tmp_path / "b", model="gru", preset=tiny_preset, verbose=0
    )
    assert second.restored_from.endswith(f"ckpt-{stop_at}")
    assert int(second.step.numpy()) == stop_at
    second.train(steps=steps, final_eval=False)
    got = snapshot(second)

    assert got["step"] == expected["step"] == steps
    for key in ("model", "optimizer", "state"):
        assert len(got[key]) == len(expected[key])
        for a, b in zip(got[key], expected[key]):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_resume_refuses_a_different_run(tiny_preset, tmp_path):
    import dataclasses

    import pytest

    data = make_data(n=500)
    Enwik8Trainer(data, tmp_path, model="gru", preset=tiny_preset, verbose=0).train(
        steps=1, final_eval=False
    )
    other = dataclasses.replace(tiny_preset, units=9)
    with pytest.raises(ValueError, match="different run"):
        Enwik8Trainer(data, tmp_path, model="gru", preset=other, verbose=0)


def test_checkpoint_round_trip(tmp_path, rng):
    """Weights, Adam's slots, step and carried state come back bit for bit."""
    import tensorflow as tf

    from keras_rda.lab.enwik8.char_model import build_char_model
    from keras_rda.lab.enwik8.checkpointing import TrainingCheckpoint
    from keras_rda.lab.enwik8.segment_steps import global_gradient_adam

    strategy = tf.distribute.get_strategy()
    config = {"model": "lstm", "units": 3}

    def make():
        model = build_char_model("lstm", units=3, vocab_size=7, embedding_dim=2)
        optimizer = global_gradient_adam(1e-3, model.trainable_variables)
        checkpoint = TrainingCheckpoint(
            tmp_path, model, optimizer, strategy, [3, 3], 5, run_config=config
        )
        return model, optimizer, checkpoint

    model, optimizer, checkpoint = make()
    assert checkpoint.restored_from is None
    for v in model.weights + optimizer.variables:
        v.assign(rng.normal(size=v.shape).astype(v.dtype))
    checkpoint.step.assign(7)
    carried = [rng.normal(size=(5, 3)).astype("float32") for _ in range(2)]
    path = checkpoint.save([tf.constant(c) for c in carried])
    assert path.endswith("ckpt-7")
    np.testing.assert_array_equal(checkpoint.carried_state[1].numpy(), carried[1])

    model2, optimizer2, restored = make()  # fresh random weights, then restore
    assert restored.restored_from == path
    assert int(restored.step.numpy()) == 7
    for a, b in zip(
        model.weights + optimizer.variables, model2.weights + optimizer2.variables
    ):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for state, expected in zip(restored.distributed_state(), carried):
        np.testing.assert_array_equal(state.numpy(), expected)
