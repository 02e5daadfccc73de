"""Export a step model (or a whole-sequence model) for serving.

- `export_saved_model(model, path)`: a TensorFlow SavedModel with a
  `serve` signature (Keras's `model.export(format="tf_saved_model")`).
- `export_onnx(model, path)`: an ONNX file (Keras's
  `model.export(format="onnx")`), run with onnxruntime.
- `export_litert(model, path)`: a LiteRT (TFLite) flat buffer with builtin
  ops only (no TensorFlow "Select"/Flex ops), converted from the SavedModel;
  run with `ai_edge_litert.interpreter.Interpreter`.

TensorFlow and the converters are imported inside these functions only:
`import keras_rda.streaming` loads Keras and NumPy alone.
"""

import os
import tempfile

import numpy as np


def _units(model):
    """The model's recurrent units, named for error messages."""
    names = []
    for layer in getattr(model, "layers", []):
        cell = getattr(layer, "cell", None)
        if cell is not None:
            names.append(f"{type(layer).__name__}({type(cell).__name__})")
        elif hasattr(layer, "state_size"):
            names.append(type(layer).__name__)
    return ", ".join(names) or type(model).__name__


def _unsupported(model, format, error):
    message = str(error)
    # The converter's message is long; its list of missing ops says why.
    for line in message.splitlines():
        if line.strip().startswith(("TF Select ops:", "Flex ops:")):
            message = (
                "its graph needs TensorFlow ops that are not LiteRT builtins "
                f"({line.strip()})"
            )
            break
    else:
        message = f"{type(error).__name__}: {message[:2000]}"
    return ValueError(
        f"Cannot export {_units(model)} (model {model.name!r}) to {format}: {message}"
    )


def _call_once(model):
    """Call `model` on zeros (Keras's ONNX export needs a called model)."""
    zeros = [
        np.zeros(
            tuple(1 if size is None else size for size in tensor.shape),
            dtype=tensor.dtype,
        )
        for tensor in model.inputs
    ]
    model(zeros[0] if len(zeros) == 1 else zeros)


def export_saved_model(model, path, verbose=False):
    """Write `model` as a TensorFlow SavedModel with a `serve` endpoint.

    Args:
        model: a step model from `step_model` or any Keras model.
        path: the SavedModel directory.
        verbose: whether Keras prints the endpoint's signature.

    Returns:
        `path`.
    """
    try:
        model.export(str(path), format="tf_saved_model", verbose=verbose)
    except Exception as error:  # noqa: BLE001 - re-raised with the unit named
        raise _unsupported(model, "SavedModel", error) from error
    return path


def export_onnx(model, path, verbose=False):
    """Write `model` as an ONNX file (Keras's ONNX export).

    Args:
        model: a step model from `step_model` or any Keras model
            (whole-sequence models export too).
        path: the `.onnx` file.
        verbose: whether Keras prints the conversion's messages.

    Returns:
        `path`.
    """
    try:
        _call_once(model)
        model.export(str(path), format="onnx", verbose=verbose)
    except Exception as error:  # noqa: BLE001 - re-raised with the unit named
        raise _unsupported(model, "ONNX", error) from error
    return path


def export_litert(model, path):
    """Write `model` as a LiteRT (TFLite) file with builtin ops only.

    The model is exported as a SavedModel, which `tf.lite.TFLiteConverter`
    converts with `supported_ops = [TFLITE_BUILTINS]`: the file runs in the
    plain LiteRT interpreter, without TensorFlow's Flex delegate. A model
    whose graph needs TensorFlow ops beyond the builtins (a whole-sequence
    model's while loop, for instance) raises a `ValueError` naming its units.

    Args:
        model: a step model from `step_model`.
        path: the `.tflite` file.

    Returns:
        `path`.
    """
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as directory:
        saved = os.path.join(directory, "saved_model")
        export_saved_model(model, saved)
        try:
            converter = tf.lite.TFLiteConverter.from_saved_model(saved)
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
            flat_buffer = converter.convert()
        except Exception as error:  # noqa: BLE001 - re-raised with the unit named
            raise _unsupported(model, "LiteRT (builtin ops only)", error) from error
    with open(path, "wb") as file:
        file.write(flat_buffer)
    return path


def litert_interpreter(path, num_threads=1):
    """A LiteRT interpreter for the file at `path` (`ai_edge_litert`, else
    `tf.lite`), with its tensors allocated."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:  # pragma: no cover - the export extra installs it
        import tensorflow as tf

        Interpreter = tf.lite.Interpreter
    interpreter = Interpreter(model_path=str(path), num_threads=num_threads)
    interpreter.allocate_tensors()
    return interpreter
