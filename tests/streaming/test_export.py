"""Exported step models equal the Keras sequence model, step by step."""

import keras
import numpy as np
import pytest

from keras_rda import streaming
from keras_rda.streaming import export
from tests.streaming import helpers
from tests.streaming import units

pytestmark = pytest.mark.tensorflow_only

ATOL = 2e-5

#: Units exported to every format.
EXPORTED = [
    "RDA",
    "RWA",
    "ParallelRDA",
    "DNC uniform",
    "DNC cached_uniform",
    "NTM regular",
    "RNN(RDACell exp-tanh, learned s0)",
    "RNN(RWACell)",
    "RNN(ParallelRDACell)",
    "RNN(FastWeightsCell)",
    "RNN(WeiNetCell)",
    "RNN(LayerNormLSTMCell)",
    "RNN(RecurrentHighwayCell)",
    "RNN(DNCCell cached_uniform)",
    "RNN(NTMCell uniform)",
    "NTM uniform",
    "RNN(LSTMCell)",
]

#: Units whose training form needs TensorFlow (Flex) ops in LiteRT, and
#: the op: `ops.cumprod` in the DNC's allocation. The step model's
#: inference form (the default) has a builtin form of it
#: (`builtin_forms=True`, `BaseMemoryCell.inference_call`); the training
#: form's export is a clear error naming the op. (The NTM's shift is one
#: gather in both forms.)
TRAINING_FORM_NEEDS_FLEX = {"DNC uniform": "Cumprod"}

FORMATS = {
    "saved_model": (
        export.export_saved_model,
        "saved_model",
        helpers.stream_saved_model,
    ),
    "onnx": (export.export_onnx, "model.onnx", helpers.stream_onnx),
    "litert": (export.export_litert, "model.tflite", helpers.stream_litert),
}


def sequences(batch=2, steps=units.STEPS, seed=0):
    return (
        np.random.RandomState(seed)
        .randn(batch, steps, units.FEATURES)
        .astype("float32")
    )


@pytest.mark.parametrize("format", sorted(FORMATS))
@pytest.mark.parametrize("name", EXPORTED)
def test_the_exported_step_model_equals_the_sequence_model(name, format, tmp_path):
    if format != "saved_model":
        pytest.importorskip("onnxruntime" if format == "onnx" else "ai_edge_litert")
    model = units.sequence_model(name)
    x = sequences()
    want = np.asarray(model(x))
    step = streaming.step_model(model)
    write, filename, stream = FORMATS[format]
    path = write(step, tmp_path / filename)
    got, states = stream(path, step, streaming.initial_states(step, 2), x)
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=1e-5)
    _, keras_states = helpers.stream_keras(step, streaming.initial_states(step, 2), x)
    for a, b in zip(states, keras_states):
        np.testing.assert_allclose(a, b, atol=ATOL, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(TRAINING_FORM_NEEDS_FLEX))
def test_the_training_form_of_memory_to_litert_is_a_clear_error(name, tmp_path):
    pytest.importorskip("ai_edge_litert")
    step = streaming.step_model(units.sequence_model(name), inference_form=False)
    with pytest.raises(ValueError) as error:
        export.export_litert(step, tmp_path / "model.tflite")
    message = str(error.value)
    assert name.split()[0] in message and "LiteRT" in message, message
    assert TRAINING_FORM_NEEDS_FLEX[name] in message, message


def test_the_whole_sequence_onnx_export_equals_keras(tmp_path):
    onnxruntime = pytest.importorskip("onnxruntime")
    model = units.sequence_model("RDA")
    x = sequences()
    path = export.export_onnx(model, tmp_path / "whole.onnx")
    session = onnxruntime.InferenceSession(
        str(path), providers=["CPUExecutionProvider"]
    )
    (got,) = session.run(None, {session.get_inputs()[0].name: x})
    np.testing.assert_allclose(got, np.asarray(model(x)), atol=ATOL, rtol=1e-5)


def test_a_whole_sequence_model_to_litert_is_a_clear_error(tmp_path):
    model = units.sequence_model("RDA")
    with pytest.raises(
        ValueError, match=r"RDA\(RDACell\).*LiteRT \(builtin ops only\)"
    ):
        export.export_litert(model, tmp_path / "whole.tflite")


def test_the_saved_model_signature_names_the_states(tmp_path):
    import tensorflow as tf

    step = streaming.step_model(units.sequence_model("RDA"))
    path = export.export_saved_model(step, tmp_path / "saved_model")
    signature = tf.saved_model.load(str(path)).signatures["serving_default"]
    names = set(signature.structured_input_signature[1])
    assert names == {"x_t", *(t.name for t in step.inputs[1:])}
    assert set(signature.structured_outputs) == {
        f"output_{i}" for i in range(len(step.outputs))
    }


def test_streaming_imports_no_tensorflow_at_import_time():
    import ast
    import inspect

    import keras_rda.streaming.export as module

    tree = ast.parse(inspect.getsource(module))
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    names = [alias.name for node in top for alias in node.names]
    assert all(name in ("os", "tempfile", "numpy") for name in names), names
    assert keras.backend.backend() == "tensorflow"


@pytest.mark.parametrize("format", sorted(FORMATS))
def test_an_exported_masked_stack_equals_the_sequence_model(format, tmp_path):
    if format != "saved_model":
        pytest.importorskip("onnxruntime" if format == "onnx" else "ai_edge_litert")
    model = keras.Sequential(
        [
            keras.Input((None, units.FEATURES)),
            keras.layers.Masking(0.0),
            units.CELLS["RDA"](),
            units.CELLS["RWA"](),
            keras.layers.Dense(2),
        ]
    )
    x = sequences()
    x[0, 2] = 0.0
    x[1, 6:8] = 0.0
    keep = np.any(x != 0.0, axis=-1)
    step = streaming.step_model(model)
    write, filename, stream = FORMATS[format]
    path = write(step, tmp_path / filename)
    got, states = stream(path, step, streaming.initial_states(step, 2), x)
    np.testing.assert_allclose(got[keep], np.asarray(model(x))[keep], atol=ATOL)
    _, keras_states = helpers.stream_keras(step, streaming.initial_states(step, 2), x)
    for a, b in zip(states, keras_states):
        np.testing.assert_allclose(a, b, atol=ATOL, rtol=1e-5)


@pytest.mark.parametrize("format", sorted(FORMATS))
def test_an_exported_padded_text_model_equals_the_sequence_model(format, tmp_path):
    """Token ids in, padding (id 0) leading, inside and trailing; embeddings
    large enough that attention logits fall below -18, where onnxruntime's
    `Sigmoid` kernel returns 0 (the plain form builds sigmoids from `exp`)."""
    if format != "saved_model":
        pytest.importorskip("onnxruntime" if format == "onnx" else "ai_edge_litert")
    from tests.streaming.test_masking import TOKENS
    from tests.streaming.test_masking import randomised

    model = keras.Sequential(
        [
            keras.Input((None,), dtype="int32"),
            keras.layers.Embedding(12, units.FEATURES, mask_zero=True),
            units.CELLS["RDA"](),
            units.CELLS["RWA"](),
            keras.layers.LSTM(units.UNITS, return_sequences=True),
            keras.layers.Dense(2),
        ]
    )
    randomised(model)
    embeddings = model.layers[0].embeddings
    embeddings.assign(embeddings * 60.0)
    step = streaming.step_model(model)
    write, filename, stream = FORMATS[format]
    path = write(step, tmp_path / filename)
    got, states = stream(path, step, streaming.initial_states(step, 4), TOKENS)
    np.testing.assert_allclose(got, np.asarray(model(TOKENS)), atol=ATOL, rtol=1e-5)
    _, keras_states = helpers.stream_keras(
        step, streaming.initial_states(step, 4), TOKENS
    )
    for a, b in zip(states, keras_states):
        # Sums of large terms (embeddings * 60): to float32 rounding.
        np.testing.assert_allclose(a, b, atol=ATOL, rtol=1e-4)
