"""One XLA-compiled training step (`SegmentSteps`) on CPU against an eager
NumPy Adam step, and the state it carries to the next step."""

import math

import numpy as np
import tensorflow as tf

from keras_rda.lab.datasets.enwik8 import segment_dataset
from keras_rda.lab.enwik8.enwik8_trainer import Enwik8Trainer


def np_log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def test_one_jit_compiled_step_is_clipped_adam(tiny_data, tiny_preset, tmp_path):
    p = tiny_preset
    trainer = Enwik8Trainer(tiny_data, tmp_path, model="lstm", preset=p, verbose=0)
    variables = trainer.model.trainable_variables
    before = [v.numpy() for v in variables]
    x, y = next(iter(segment_dataset(tiny_data.train, p.batch_size, p.bptt)))
    zeros = [tf.zeros((p.batch_size, s)) for s in (p.units, p.units)]

    # Eager reference: loss from NumPy log-softmax, gradient by a tape.
    with tf.GradientTape() as tape:
        logits, *_ = trainer.model([x, *zeros])
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
    grads = [tf.convert_to_tensor(g).numpy() for g in tape.gradient(loss, variables)]
    logp = np_log_softmax(logits.numpy().astype(np.float64))
    nats = -np.take_along_axis(logp, y.numpy()[..., None], -1).mean()

    # The step really is an XLA program: it lowers to HLO.
    hlo = trainer.xla_function.experimental_get_compiler_ir(
        x, y, zeros, tf.constant(True)
    )(stage="hlo")
    assert "while" in hlo

    result = trainer.train(steps=1, final_eval=False)
    assert result["step"] == 1 and int(trainer.step.numpy()) == 1
    np.testing.assert_allclose(result["train_bpc"], nats / math.log(2), rtol=1e-5)

    # Adam's first step (Kingma & Ba, Algorithm 1) on the gradient clipped to
    # [-1, 1] element-wise (RDA paper, section 6.1).
    lr, b1, b2, eps = p.learning_rate, 0.9, 0.999, 1e-7
    for w0, g, v in zip(before, grads, variables):
        g = np.clip(g, -p.clipvalue, p.clipvalue)
        m_hat, v_hat = g, g * g  # (1-b)g / (1-b) after bias correction
        alpha = lr * math.sqrt(1 - b2) / (1 - b1)
        step = alpha * ((1 - b1) * g) / (np.sqrt((1 - b2) * v_hat) + eps)
        del m_hat
        np.testing.assert_allclose(v.numpy(), w0 - step, rtol=1e-4, atol=1e-7)


def test_state_is_carried_between_steps(tiny_data, tiny_preset, tmp_path):
    """Step 2's loss is computed from the state step 1 left (no reset)."""
    p = tiny_preset
    trainer = Enwik8Trainer(tiny_data, tmp_path, model="gru", preset=p, verbose=0)
    segments = list(segment_dataset(tiny_data.train, p.batch_size, p.bptt).take(2))
    x1, _ = segments[0]
    zeros = tf.zeros((p.batch_size, p.units))
    _, carried = trainer.model([x1, zeros])  # state after segment 1 (pre-update)
    trainer.train(steps=1, final_eval=False)
    saved = trainer.checkpoint.carried_state[0].numpy()  # the checkpointed state
    np.testing.assert_allclose(saved, carried.numpy(), rtol=1e-5, atol=1e-6)
    (x2, y2) = segments[1]
    logits, _ = trainer.model([x2, tf.constant(saved)])
    logp = np_log_softmax(logits.numpy().astype(np.float64))
    expected = -np.take_along_axis(logp, y2.numpy()[..., None], -1).mean()
    result = trainer.train(steps=2, final_eval=False)
    np.testing.assert_allclose(result["train_bpc"], expected / math.log(2), rtol=1e-5)
