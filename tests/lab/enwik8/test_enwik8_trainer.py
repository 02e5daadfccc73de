"""The trainer: bits per character with the state carried through a split
(against NumPy), the training stream's data position, the final evaluation's
records, size checks, and the refusal of backends other than TensorFlow
and JAX."""

import dataclasses
import importlib.util
import json
import math

import numpy as np
import pytest

from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from keras_rda.lab.enwik8.enwik8_trainer import training_segments
from tests.helpers import sigmoid
from tests.lab.enwik8.conftest import run_script


def numpy_lstm_bpc(weights, tokens, batch, units):
    """BPC of embedding -> LSTM -> dense over `batch` contiguous rows.

    Keras's LSTM gate order is i, f, c, o; every row runs from its first to
    its last character with the state carried, and predicts characters 1..L-1.
    """
    emb, kernel, recurrent, bias, dense_w, dense_b = [
        w.astype(np.float64) for w in weights
    ]
    row_len = len(tokens) // batch
    rows = tokens[: batch * row_len].reshape(batch, row_len)
    h = np.zeros((batch, units))
    c = np.zeros((batch, units))
    nats = 0.0
    for t in range(row_len - 1):
        z = emb[rows[:, t]] @ kernel + h @ recurrent + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        logits = h @ dense_w + dense_b
        logits = logits - logits.max(-1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        nats -= logp[np.arange(batch), rows[:, t + 1]].sum()
    return nats / (batch * (row_len - 1)) / math.log(2)


def test_bpc_matches_numpy(tiny_data, tiny_preset, tmp_path, rng):
    # 3 rows of 66 characters, bptt 10: six full segments and a shorter one.
    preset = dataclasses.replace(tiny_preset, eval_batch_size=3)
    trainer = Enwik8Trainer(tiny_data, tmp_path, model="lstm", preset=preset, verbose=0)
    # Random weights large enough that the prediction is far from uniform.
    for v in trainer.model.weights:
        v.assign(rng.normal(0, 1.0, v.shape).astype("float32"))
    weights = [v.numpy() for v in trainer.model.weights]
    expected = numpy_lstm_bpc(weights, tiny_data.valid, 3, preset.units)
    got = trainer.evaluate("valid")
    assert abs(expected - 8.0) > 0.1  # not the uniform 8 bits
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_training_segments_resume_at_any_step(tiny_data):
    """Step s reads segment s % segments_per_epoch of the rows, epoch after
    epoch, whichever step the stream starts from."""
    batch, bptt = 4, 10
    tokens = tiny_data.train
    row_len = len(tokens) // batch
    rows = tokens[: batch * row_len].reshape(batch, row_len)
    per_epoch = (row_len - 1) // bptt
    for start in (0, per_epoch - 1, per_epoch + 3):
        stream = training_segments(tokens, batch, bptt, start)
        for step in range(start, start + per_epoch + 2):
            segment, x, y = next(stream)
            k = step % per_epoch
            assert segment == k
            np.testing.assert_array_equal(x, rows[:, k * bptt : (k + 1) * bptt])
            np.testing.assert_array_equal(y, rows[:, k * bptt + 1 : (k + 1) * bptt + 1])


def test_final_evaluation_is_logged_and_recorded(tiny_data, tiny_preset, tmp_path):
    trainer = Enwik8Trainer(
        tiny_data, tmp_path, model="gru", preset=tiny_preset, verbose=0
    )
    result = trainer.train(steps=3)
    assert result["step"] == 3 and not result["interrupted"]
    assert result["valid_bpc"] == pytest.approx(trainer.evaluate("valid"))
    assert result["test_bpc"] == pytest.approx(trainer.evaluate("test"))
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["model"] == "gru" and saved["preset"]["units"] == tiny_preset.units
    assert {k: saved[k] for k in result} == result
    last = json.loads((tmp_path / "history.jsonl").read_text().splitlines()[-1])
    assert last == {
        "step": 3,
        "valid/bpc": result["valid_bpc"],
        "test/bpc": result["test_bpc"],
    }


def test_batch_must_split_over_replicas(tiny_data, tiny_preset, tmp_path):
    class TwoReplicas:
        num_replicas_in_sync = 2

    preset = dataclasses.replace(tiny_preset, batch_size=3)
    with pytest.raises(ValueError, match="argument `batch_size`, expected a multiple"):
        Enwik8Trainer(tiny_data, tmp_path, preset=preset, strategy=TwoReplicas())


def test_bad_loop_arguments(tiny_data, tiny_preset, tmp_path):
    trainer = Enwik8Trainer(tiny_data, tmp_path, preset=tiny_preset, verbose=0)
    with pytest.raises(ValueError, match="argument `steps`"):
        trainer.train(steps=-1)
    with pytest.raises(ValueError, match="argument `max_chars`"):
        trainer.evaluate("valid", max_chars=0)
    with pytest.raises(ValueError, match="argument `split`"):
        trainer.evaluate("dev")
    assert int(trainer.step.numpy()) == 0


BACKEND_SCRIPT = """
import json, sys
from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer
from tests.lab.enwik8.conftest import make_data
try:
    Enwik8Trainer(make_data(n=500), sys.argv[1], model="gru")
    print("REPORT" + json.dumps({"refused": None}))
except ValueError as error:
    print("REPORT" + json.dumps({"refused": str(error)}))
"""


@pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="PyTorch is not installed (the [torch] extra)",
)
def test_other_backends_are_refused(tmp_path):
    refused = run_script(BACKEND_SCRIPT, tmp_path, KERAS_BACKEND="torch")["refused"]
    assert "backend is 'torch'" in refused
    assert "backends tensorflow, jax" in refused
    assert not (tmp_path / "checkpoints").exists()
