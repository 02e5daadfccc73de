"""ParallelRDA: the scan against the cell, the NumPy reference and invariants."""

import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

import keras_rda
from tests.cells import parallel_rda_reference as reference
from tests.layers.gradients import loss_and_gradients

METHODS = ["chunked", "associative"]


def layer_pair(params, input_dim, chunk_size=8, method="chunked", **kwargs):
    """A `ParallelRDA` and `keras.layers.RNN(ParallelRDACell)` with `params`."""
    cell_keys = ("attention_activation", "hidden_activation", "output_activation")
    cell_kwargs = {k: v for k, v in kwargs.items() if k in cell_keys}
    layer = keras_rda.ParallelRDA(
        params["b_u"].shape[0],
        return_sequences=True,
        return_state=True,
        chunk_size=chunk_size,
        scan_method=method,
        **kwargs,
    )
    rnn_kwargs = {k: v for k, v in kwargs.items() if k not in cell_keys}
    rnn = keras.layers.RNN(
        keras_rda.ParallelRDACell(params["b_u"].shape[0], **cell_kwargs),
        return_sequences=True,
        return_state=True,
        **rnn_kwargs,
    )
    weights = reference.to_keras_weights(params)
    for each in (layer, rnn):
        each.build((None, None, input_dim))
        each.set_weights(weights)
    return layer, rnn


def assert_close(actual, expected, tol=2e-5):
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=tol, atol=tol)


def assert_matches_rnn(ours, theirs, mask, tol=2e-5, go_backwards=False, zeros=False):
    """`ParallelRDA` outputs against `RNN(ParallelRDACell)`'s, and masking.

    The states everywhere and the sequence at the real steps equal the RNN's;
    at a masked step the sequence repeats the last real output (0 before the
    first), or is 0 with `zeros` (`zero_output_for_mask`). The RNN's own
    masked steps are not compared: Keras's JAX loop outputs states[0] there.
    """
    ours, theirs = ([np.asarray(v) for v in each] for each in (ours, theirs))
    assert_close(ours[1:], theirs[1:], tol)
    in_order = mask[:, ::-1] if go_backwards else mask  # the outputs' order
    real = in_order[..., None]
    assert_close([ours[0] * real], [theirs[0] * real], tol)
    for b, row in enumerate(ours[0]):
        last = np.zeros_like(row[0])
        for t, is_real in enumerate(in_order[b]):
            if is_real:
                last = row[t]
            else:
                want = 0.0 if zeros else last
                np.testing.assert_allclose(row[t], want, rtol=tol, atol=tol)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "length,chunk_size",
    # 70 / 4: 18 chunks, whose carries are scanned in 3 blocks of
    # parallel_scan.CARRY_BLOCK = 8 (the last padded); 300 / 4: 75 chunks,
    # 10 blocks, blocks of blocks.
    [(1, 8), (7, 8), (8, 8), (29, 8), (50, 64), (70, 4), (300, 4)],
)
@pytest.mark.parametrize("attention", ["sigmoid", "exp", "softplus", "relu"])
def test_layer_equals_rnn_of_cell_with_masks(
    attention, length, chunk_size, method, rng
):
    params = reference.random_params(rng, 3, 4)
    x = rng.normal(size=(3, length, 3)).astype(np.float32)
    mask = rng.random((3, length)) > 0.3
    layer, rnn = layer_pair(
        params, 3, chunk_size, method, attention_activation=attention
    )
    (ours, *our_states), (theirs, *their_states) = (
        [keras.ops.convert_to_numpy(v) for v in each(x, mask=mask)]
        for each in (layer, rnn)
    )
    # Every step against the NumPy reference (masked steps repeat the last
    # real output); the RNN of the cell at the real steps (at masked steps
    # Keras's JAX loop repeats states[0], not the output) and its states.
    expected, _, _ = reference.run(params, x, attention, mask=mask)
    np.testing.assert_allclose(ours, expected, atol=3e-5)
    real = mask[..., None]
    assert_close([ours * real], [theirs * real])
    assert_close(our_states, their_states)


@pytest.mark.parametrize("method", METHODS)
def test_gradients_equal_rnn_of_cell(method, rng):
    params = reference.random_params(rng, 2, 3)
    x = rng.normal(size=(2, 21, 2)).astype(np.float32)
    mask = rng.random((2, 21)) > 0.2
    mask[1, -3:] = False  # trailing padding: the final state is held
    # Chunks of 2: 11 chunks, their carries scanned in two blocks of 8.
    layer, rnn = layer_pair(params, 2, 2, method, attention_activation="exp")
    # A masked step repeats the last real output (zeros before the first):
    # the sum of squares over every step of the layer's output is, on the
    # RNN's, a sum over the real steps weighted by 1 + the masked steps
    # that repeat each. (Keras's JAX loop repeats states[0] at masked steps,
    # so the RNN's outputs are compared at real steps only.)
    repeats = np.zeros(mask.shape, np.float32)
    for b, t in zip(*np.nonzero(mask)):
        later = np.flatnonzero(mask[b, t + 1 :])  # the next real steps
        repeats[b, t] = 1 + (later[0] if later.size else mask.shape[1] - t - 1)

    def loss_fn(outputs, weights=None):
        sequence, *states = outputs
        squares = sequence**2 if weights is None else weights[..., None] * sequence**2
        return keras.ops.sum(squares) + sum(keras.ops.sum(s) for s in states)

    got = loss_and_gradients(layer, x, loss_fn, mask=mask)
    weights = keras.ops.convert_to_tensor(repeats)
    want = loss_and_gradients(rnn, x, lambda o: loss_fn(o, weights), mask=mask)
    assert got[1] == pytest.approx(want[1], rel=1e-5)
    assert len(got[2]) == len(layer.trainable_weights) + 1
    assert all(np.any(g != 0) for g in got[2])
    assert_close(got[2], want[2], tol=1e-4)


def test_ten_thousand_steps_match_reference_and_cell(rng):
    params = reference.random_params(rng, 2, 3)
    x = rng.normal(size=(2, 10_000, 2)).astype(np.float32)
    mask = rng.random((2, 10_000)) > 0.1
    layer, rnn = layer_pair(params, 2, 64)
    inputs = keras.Input((None, 2), batch_size=2)
    mask_in = keras.Input((None,), batch_size=2, dtype="bool")
    compiled = [
        keras.Model([inputs, mask_in], each(inputs, mask=mask_in))
        for each in (layer, rnn)
    ]
    ours, theirs = (m.predict_on_batch([x, mask]) for m in compiled)
    assert_matches_rnn(ours, theirs, mask, tol=1e-4)
    expected, n_ref, d_ref = reference.run(params, x, mask=mask)
    np.testing.assert_allclose(ours[0], expected, atol=1e-4)
    n, d, m = ours[1:]
    np.testing.assert_allclose(n / d, n_ref / d_ref, atol=1e-4)


@pytest.mark.parametrize("method", METHODS)
def test_two_chained_segments_equal_one_run(method, rng):
    params = reference.random_params(rng, 2, 4)
    x = rng.normal(size=(3, 60, 2)).astype(np.float32)
    mask = rng.random((3, 60)) > 0.3
    layer, _ = layer_pair(params, 2, 8, method, attention_activation="exp")
    whole, *final = layer(x, mask=mask)
    first, *state = layer(x[:, :30], mask=mask[:, :30])
    second, *chained = layer(x[:, 30:], mask=mask[:, 30:], initial_state=state)
    # The second segment's leading masked steps repeat the last output of the
    # first in `whole`; a fresh call outputs zeros there (keras.layers.RNN).
    shown = np.cumsum(mask[:, 30:], axis=1) > 0
    np.testing.assert_allclose(
        np.asarray(second)[shown], np.asarray(whole)[:, 30:][shown], atol=2e-5
    )
    np.testing.assert_allclose(np.asarray(first), np.asarray(whole)[:, :30], atol=2e-5)
    assert_close(chained, final)


def test_stateful_calls_chain(rng):
    params = reference.random_params(rng, 2, 4)
    x = rng.normal(size=(2, 40, 2)).astype(np.float32)
    stateful = keras_rda.ParallelRDA(4, return_sequences=True, stateful=True)
    stateful.build((2, None, 2))
    stateful.set_weights(reference.to_keras_weights(params))
    parts = [np.asarray(stateful(x[:, :25])), np.asarray(stateful(x[:, 25:]))]
    expected, _, _ = reference.run(params, x)
    np.testing.assert_allclose(np.concatenate(parts, 1), expected, atol=2e-5)
    stateful.reset_state()
    np.testing.assert_allclose(
        np.asarray(stateful(x[:, :25])), expected[:, :25], atol=2e-5
    )


@pytest.mark.parametrize("zero_output_for_mask", [False, True])
def test_go_backwards_and_zero_output_for_mask_match_rnn(zero_output_for_mask, rng):
    params = reference.random_params(rng, 2, 3)
    x = rng.normal(size=(2, 19, 2)).astype(np.float32)
    mask = rng.random((2, 19)) > 0.3
    layer, rnn = layer_pair(
        params, 2, 4, go_backwards=True, zero_output_for_mask=zero_output_for_mask
    )
    assert_matches_rnn(
        layer(x, mask=mask),
        rnn(x, mask=mask),
        mask,
        go_backwards=True,
        zeros=zero_output_for_mask,
    )


@pytest.mark.parametrize("attention", ["exp", "sigmoid", "softplus", "relu"])
def test_no_nan_or_inf_for_ten_thousand_steps_with_huge_logits(attention, rng):
    layer = keras_rda.ParallelRDA(
        3, attention_activation=attention, return_sequences=True
    )
    layer.build((None, None, 2))
    kernel, bias = layer.get_weights()
    # Attention and discount logits in the thousands, of both signs.
    layer.set_weights([kernel * 3000.0, bias])
    x = rng.normal(size=(2, 10_000, 2)).astype(np.float32)
    (outputs,), _, grads = loss_and_gradients(layer, x, keras.ops.sum)
    assert np.isfinite(outputs).all()
    assert len(grads) == len(layer.trainable_weights) + 1
    assert all(np.isfinite(g).all() for g in grads)
    # The output is an average of features z (f_h, f_o linear): within their
    # range; with ReLU attention, before the first positive attention weight
    # it is the empty average, 0.
    z = keras.ops.convert_to_numpy(layer.cell.gate_terms(x)[0])
    if attention == "relu":
        z = np.append(z, 0.0)
    assert (outputs <= z.max() + 1e-3).all() and (outputs >= z.min() - 1e-3).all()


def test_mixed_precision_keeps_sums_in_float32(rng):
    params = reference.random_params(rng, 2, 4)
    x = rng.normal(size=(2, 3000, 2)).astype(np.float32)
    expected, _, _ = reference.run(params, x, "exp")
    keras.config.set_dtype_policy("mixed_float16")
    layer = keras_rda.ParallelRDA(4, attention_activation="exp", return_sequences=True)
    layer.build((None, None, 2))
    layer.set_weights(reference.to_keras_weights(params))
    assert layer.cell.accumulation_dtype == "float32"
    outputs = layer(x)
    assert keras.backend.standardize_dtype(outputs.dtype) == "float16"
    outputs = np.asarray(outputs, np.float32)
    assert np.isfinite(outputs).all()
    np.testing.assert_allclose(outputs, expected, atol=5e-2)


@pytest.mark.parametrize("jit_compile", [False, True])
def test_unknown_batch_and_length_train_and_predict(jit_compile, rng):
    # Chunks of 4: length 10 is three chunks, the last padded; length 3 fits
    # in one chunk, shortened to the sequence. (With chunks of 64, the
    # default until 2026-11-27, XLA on TensorFlow took over a minute to
    # compile each program: 64 unrolled local steps. Chunk 64 is still
    # checked against the reference in
    # test_ten_thousand_steps_match_reference_and_cell.)
    model = keras.Sequential(
        [
            keras.Input((None, 2)),
            keras_rda.ParallelRDA(5, chunk_size=4),
            keras.layers.Dense(1),
        ]
    )
    model.compile("adam", "mse", jit_compile=jit_compile)
    for batch, length in [(3, 10), (5, 3)]:
        x = rng.normal(size=(batch, length, 2)).astype(np.float32)
        loss = model.train_on_batch(x, np.ones((batch, 1), np.float32))
        assert np.isfinite(loss)
        assert model.predict_on_batch(x).shape == (batch, 1)


def test_associative_scan_with_unknown_batch(rng):
    model = keras.Sequential(
        [
            keras.Input((None, 2)),
            keras_rda.ParallelRDA(5, scan_method="associative"),
            keras.layers.Dense(1),
        ]
    )
    model.compile("adam", "mse")
    x = rng.normal(size=(3, 20, 2)).astype(np.float32)
    assert np.isfinite(model.train_on_batch(x, np.ones((3, 1), np.float32)))


def test_dropout_is_one_mask_per_sequence_like_the_cell(rng):
    layer = keras_rda.ParallelRDA(4, dropout=0.5, seed=3, return_sequences=True)
    x = rng.normal(size=(2, 9, 3)).astype(np.float32)
    inference = np.asarray(layer(x))
    np.testing.assert_array_equal(inference, np.asarray(layer(x)))
    assert not np.allclose(np.asarray(layer(x, training=True)), inference)


def test_weights_are_the_cells_in_the_same_order():
    layer = keras_rda.ParallelRDA(6)
    layer.build((None, None, 3))
    assert [w.path.split("/")[-1] for w in layer.weights] == ["kernel", "bias"]
    assert [tuple(w.shape) for w in layer.weights] == [(3, 24), (24,)]


def test_config_round_trip():
    layer = keras_rda.ParallelRDA(
        5, attention_activation="relu", chunk_size=16, scan_method="associative"
    )
    config = json.loads(json.dumps(layer.get_config()))
    restored = keras_rda.ParallelRDA.from_config(config)
    assert restored.get_config() == layer.get_config()


@pytest.mark.parametrize(
    "kwargs,name",
    [({"scan_method": "fft"}, "scan_method"), ({"chunk_size": 0}, "chunk_size")],
)
def test_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=f"argument `{name}`"):
        keras_rda.ParallelRDA(3, **kwargs)


def test_wrong_input_rank_names_the_argument():
    with pytest.raises(ValueError, match="argument `inputs`"):
        keras_rda.ParallelRDA(3)(np.zeros((2, 3), np.float32))


def test_keras_format_round_trip(tmp_path, rng):
    model = keras.Sequential(
        [
            keras.Input((None, 2)),
            keras_rda.ParallelRDA(4, attention_activation="exp", return_sequences=True),
            keras.layers.RNN(keras_rda.ParallelRDACell(3)),
            keras.layers.Dense(1),
        ]
    )
    model.set_weights([rng.normal(0, 0.5, w.shape) for w in model.get_weights()])
    x = rng.normal(size=(3, 11, 2)).astype(np.float32)
    model.save(tmp_path / "m.keras")
    restored = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(
        model.predict(x, verbose=0), restored.predict(x, verbose=0)
    )


def test_export_and_load_in_a_process_without_keras_rda(tmp_path, rng):
    inputs = keras.Input((None, 2))
    features = keras_rda.ParallelRDA(5, return_sequences=True, chunk_size=4)(inputs)
    features = keras.layers.RNN(keras_rda.ParallelRDACell(3))(features)
    model = keras.Model(inputs, keras.layers.Dense(1)(features))
    model.set_weights([rng.normal(0, 0.5, w.shape) for w in model.get_weights()])
    x = rng.normal(size=(3, 13, 2)).astype(np.float32)
    expected = model.predict(x, verbose=0)
    model.export(str(tmp_path / "exported"), verbose=False)
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(
        f"""
        import sys
        import numpy as np
        import tensorflow as tf
        loaded = tf.saved_model.load({str(tmp_path / "exported")!r})
        y = loaded.serve(tf.constant(np.load({str(tmp_path / "x.npy")!r})))
        np.save({str(tmp_path / "y.npy")!r}, y.numpy())
        assert "keras_rda" not in sys.modules, "keras_rda was imported"
        """
    )
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, atol=1e-6)
