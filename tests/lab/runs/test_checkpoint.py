"""`checkpoint`: a run interrupted, finished or extended resumes as one run."""

import json

import numpy as np
import pytest

from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.tasks import get_task

TINY = dict(steps=6, batch_size=4, units=3, eval_every=2, eval_examples=8, verbose=0)


def test_interrupted_run_resumes_as_uninterrupted(tmp_path):
    """Stopped after 2 of 3 evaluations (a crash), rerun: same curve and weights."""
    from keras_rda.lab.runs import run_loop

    task = get_task("reber", max_length=12)
    reference = train(task, "gru", **TINY)
    original = run_loop.make_recorder

    def crashing_recorder(*args, **kwargs):
        recorder = original(*args, **kwargs)
        on_epoch_end = recorder.on_epoch_end

        def crash_after(epoch, logs=None):
            on_epoch_end(epoch, logs)
            if epoch == 1:
                raise KeyboardInterrupt

        recorder.on_epoch_end = crash_after
        return recorder

    run_loop.make_recorder = crashing_recorder
    try:
        with pytest.raises(KeyboardInterrupt):
            train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    finally:
        run_loop.make_recorder = original
    # The recorder runs before the checkpoint callback: the crash at the
    # second evaluation loses that interval, the first one is kept.
    state = json.loads((tmp_path / "latest.json").read_text())
    assert state["epoch"] == 1 and [c["step"] for c in state["curve"]] == [2]
    resumed = train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    assert [c["step"] for c in resumed.curve] == [2, 4, 6]
    for got, want in zip(resumed.curve, reference.curve):
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    for a, b in zip(resumed.keras_model.weights, reference.keras_model.weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert (tmp_path / "result.json").exists()
    assert not (tmp_path / "latest.json").exists()
    # A finished run is returned, not retrained; other settings are refused.
    again = train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    assert again.curve == resumed.curve
    with pytest.raises(ValueError, match="different run"):
        train(task, "gru", checkpoint_dir=tmp_path, **{**TINY, "units": 4})


def test_finished_run_asked_for_more_steps_trains_on_as_one_run(tmp_path):
    """A finished run rerun with more steps goes on from where it ended: its
    curve and weights are those of one run of the longer length."""
    task = get_task("reber", max_length=12)
    longer = {**TINY, "steps": 10}
    reference = train(task, "gru", **longer)
    first = train(task, "gru", checkpoint_dir=tmp_path, **TINY)
    assert [c["step"] for c in first.curve] == [2, 4, 6]
    # A run.json written before runs could be extended holds the steps.
    fingerprint = json.loads((tmp_path / "run.json").read_text())
    assert "steps" not in fingerprint["settings"]
    fingerprint["settings"]["steps"] = 6
    (tmp_path / "run.json").write_text(json.dumps(fingerprint))
    extended = train(task, "gru", checkpoint_dir=tmp_path, **longer)
    assert [c["step"] for c in extended.curve] == [2, 4, 6, 8, 10]
    for got, want in zip(extended.curve, reference.curve):
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    for a, b in zip(extended.keras_model.weights, reference.keras_model.weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert extended.settings["steps"] == 10
    assert extended.cpu_seconds > first.cpu_seconds  # the totals go on
    assert json.loads((tmp_path / "result.json").read_text())["steps"] == 10
    assert not (tmp_path / "latest.json").exists()
    assert not list(tmp_path.glob("ckpt-*"))
    # Asked for fewer steps than it has trained, it is refused, not cut.
    with pytest.raises(ValueError, match="`steps`, expected at least the 10 steps"):
        train(task, "gru", checkpoint_dir=tmp_path, **TINY)


def test_only_a_run_that_trained_to_its_end_is_continued():
    from keras_rda.lab.runs.checkpoint import can_continue

    run = {
        "steps": 6,
        "settings": {"steps": 6},
        "steps_to_threshold": None,
        "diverged": False,
    }
    assert can_continue(run, 10, stop_at_threshold=False)
    assert not can_continue(run, 6, stop_at_threshold=False)
    # Stopped early (on a NaN loss, or at its threshold): a longer run
    # would have stopped there too.
    assert not can_continue({**run, "steps": 4, "diverged": True}, 10, False)
    met = {**run, "steps": 4, "steps_to_threshold": 4}
    assert not can_continue(met, 10, stop_at_threshold=True)
    # Met its threshold at its last step but was not asked to stop there.
    assert can_continue({**run, "steps_to_threshold": 6}, 10, False)
