"""The enwik8 loop's hooks: when each acts and what it writes.

The hooks are driven here with known losses and a fake clock, so the BPC and
speed they log are checked against numbers computed in the test.
"""

import dataclasses
import math

import numpy as np
import pytest
import tensorflow as tf

from keras_rda.lab.enwik8 import loop_hooks
from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from keras_rda.lab.enwik8.loop_hooks import PeriodicCheckpoint
from keras_rda.lab.enwik8.loop_hooks import PeriodicValidation
from keras_rda.lab.enwik8.loop_hooks import StepCallback
from keras_rda.lab.enwik8.loop_hooks import TrainProgress
from keras_rda.lab.enwik8.run_log import RunLog


class FakeClock:
    """`time.perf_counter` that moves only when told."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(loop_hooks.time, "perf_counter", fake)
    return fake


def run(hooks, nats, clock, seconds_per_step=1.0, start=0):
    """Drives `hooks` through steps start+1.. with the losses `nats`."""
    steps = start + len(nats)
    for hook in hooks:
        hook.on_train_begin(start, steps)
    for step, value in enumerate(nats, start=start + 1):
        clock.now += seconds_per_step
        for hook in hooks:
            hook.on_step_end(step, tf.constant(value), states=[])


def test_train_progress_logs_each_interval(tmp_path, clock):
    log = RunLog(tmp_path)
    progress = TrainProgress(log, chars_per_step=40, log_every=2, verbose=0)
    nats = [30.0, 20.0, 10.0, 5.0, 2.0]
    run([progress], nats, clock, seconds_per_step=0.5)
    history = log.history()
    assert [h["step"] for h in history] == [2, 4, 5]  # every 2nd and the last
    for h, interval in zip(history, [nats[0:2], nats[2:4], nats[4:5]]):
        chars = 40 * len(interval)
        assert h["train/bpc"] == pytest.approx(sum(interval) / chars / math.log(2))
        assert h["train/chars_per_sec"] == pytest.approx(chars / (0.5 * len(interval)))
    assert progress.latest == {
        "train_bpc": history[-1]["train/bpc"],
        "chars_per_sec": history[-1]["train/chars_per_sec"],
    }
    assert (tmp_path / "tensorboard").is_dir()


def test_validation_every_n_steps_not_counted_as_training_time(tmp_path, clock):
    log = RunLog(tmp_path)
    progress = TrainProgress(log, chars_per_step=10, log_every=2, verbose=0)
    calls = []

    def evaluate(split, max_chars=None):
        calls.append((split, max_chars))
        clock.now += 100.0  # a slow evaluation
        return 1.5

    validation = PeriodicValidation(evaluate, 3, 500, log, progress, verbose=0)
    run([progress, validation], [1.0] * 6, clock, seconds_per_step=1.0)
    # Steps 3 (not 6: the last step is followed by the full evaluation).
    assert calls == [("valid", 500)]
    history = log.history()
    assert {"step": 3, "valid/bpc": 1.5} in history
    speeds = [h["train/chars_per_sec"] for h in history if "train/bpc" in h]
    np.testing.assert_allclose(speeds, [10.0, 10.0, 10.0])  # 20 chars in 2 s


def test_periodic_checkpoint_and_callback(clock):
    saved, seen = [], []

    class FakeCheckpoint:
        def save(self, states):
            saved.append(states)

    states = ["carried"]
    hooks = [PeriodicCheckpoint(FakeCheckpoint(), 4), StepCallback(seen.append)]
    for hook in hooks:
        hook.on_train_begin(2, 11)
    for step in range(3, 12):
        for hook in hooks:
            hook.on_step_end(step, tf.constant(0.0), states)
    assert saved == [states, states]  # steps 4 and 8
    assert seen == list(range(3, 12))


def test_trainer_runs_hooks_before_the_callback(tiny_data, tiny_preset, tmp_path):
    """At `on_step(k)`, step k's log line and checkpoint already exist."""
    preset = dataclasses.replace(tiny_preset, checkpoint_every=2, log_every=1)
    trainer = Enwik8Trainer(tiny_data, tmp_path, model="gru", preset=preset, verbose=0)
    seen = []

    def on_step(step):
        logged = [h["step"] for h in RunLog(tmp_path).history()]
        latest = trainer.checkpoint.manager.latest_checkpoint
        seen.append((step, logged[-1], latest and latest.rsplit("-", 1)[-1]))

    trainer.train(steps=4, on_step=on_step, final_eval=False)
    assert seen == [(1, 1, None), (2, 2, "2"), (3, 3, "2"), (4, 4, "4")]
