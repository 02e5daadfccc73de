"""What the enwik8 loop does between steps, one hook per job: after each
compiled step `Enwik8Trainer.train` calls every hook's `on_step_end(step,
nats, states)` in order (`TrainProgress`, `PeriodicValidation`,
`PeriodicCheckpoint`, `StepCallback`)."""

import contextlib
import math
import time

import keras
import numpy as np

LN2 = math.log(2.0)


def bits_per_char(nats, chars):
    """Mean bits per character from summed cross-entropy `nats` (float)."""
    return nats / chars / LN2


class LoopHook:
    """Base class: a hook the loop calls before training and after each step."""

    def on_train_begin(self, start, steps):
        """Called once: training goes from step `start` to step `steps`."""

    def on_step_end(self, step, nats, states):
        """Called after step `step` (1 after the first) with its summed
        cross-entropy `nats` and the carried state after it."""


class TrainProgress(LoopHook):
    """Training BPC and speed every `log_every` steps of `chars_per_step`
    characters, to `run_log` and (with `verbose`) a progress bar; `latest`
    holds the last interval's `{"train_bpc", "chars_per_sec"}`."""

    def __init__(self, run_log, chars_per_step, log_every, verbose=1):
        self.run_log = run_log
        self.chars_per_step = chars_per_step
        self.log_every = log_every
        self.verbose = verbose
        self.latest = {}

    def on_train_begin(self, start, steps):
        self._steps = steps
        self._bar = keras.utils.Progbar(
            steps, verbose=self.verbose, stateful_metrics=["bpc", "chars/s"]
        )
        if start:
            self._bar.update(start)
        self._interval, self._clock = [], time.perf_counter()

    def on_step_end(self, step, nats, states):
        self._interval.append(nats)
        if step % self.log_every == 0 or step == self._steps:
            self._log_interval(step)

    def _log_interval(self, step):
        chars = self.chars_per_step * len(self._interval)
        nats = float(np.sum([np.asarray(t) for t in self._interval]))
        bpc = bits_per_char(nats, chars)
        speed = chars / (time.perf_counter() - self._clock)
        self.latest = {"train_bpc": bpc, "chars_per_sec": speed}
        self.run_log.scalars(step, {"train/bpc": bpc, "train/chars_per_sec": speed})
        self._bar.update(step, [("bpc", bpc), ("chars/s", speed)])
        self._interval, self._clock = [], time.perf_counter()

    @contextlib.contextmanager
    def paused(self):
        """Time spent in this block (evaluation) is not training time."""
        begin = time.perf_counter()
        try:
            yield
        finally:
            self._clock += time.perf_counter() - begin


class PeriodicValidation(LoopHook):
    """Validation BPC (the trainer's `evaluate` on the first `max_chars`
    characters; 0 or None: all) every `every` steps (0: never) but the last,
    to `run_log` (`valid/bpc`; printed with `verbose`), the `progress` clock
    paused meanwhile."""

    def __init__(self, evaluate, every, max_chars, run_log, progress, verbose=1):
        self.evaluate = evaluate
        self.every = every
        self.max_chars = max_chars or None
        self.run_log = run_log
        self.progress = progress
        self.verbose = verbose

    def on_train_begin(self, start, steps):
        self._steps = steps

    def on_step_end(self, step, nats, states):
        if not self.every or step % self.every or step >= self._steps:
            return
        with self.progress.paused():
            valid = self.evaluate("valid", max_chars=self.max_chars)
            self.run_log.scalars(step, {"valid/bpc": valid})
            if self.verbose:
                print(f"\nstep {step}: valid BPC {valid:.4f}")


class PeriodicCheckpoint(LoopHook):
    """A checkpoint (with the carried state) every `every` steps."""

    def __init__(self, checkpoint, every):
        self.checkpoint = checkpoint
        self.every = every

    def on_step_end(self, step, nats, states):
        if step % self.every == 0:
            self.checkpoint.save(states)


class StepCallback(LoopHook):
    """Calls `function(step)` after each step."""

    def __init__(self, function):
        self.function = function

    def on_step_end(self, step, nats, states):
        self.function(step)
