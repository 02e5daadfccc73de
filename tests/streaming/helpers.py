"""Streaming a sequence through a step model or an exported artifact."""

import numpy as np


def stream_keras(step, states, x):
    """Feed `x [B, T, ...]` step by step; `(outputs [B, T, ...], states)`."""
    outputs = []
    states = list(states)
    for t in range(x.shape[1]):
        y, *states = [np.asarray(v) for v in step([x[:, t], *states])]
        outputs.append(y)
    return np.stack(outputs, 1), states


def state_names(step):
    return [tensor.name for tensor in step.inputs[1:]]


def stream_saved_model(path, step, states, x):
    import tensorflow as tf

    serve = tf.saved_model.load(str(path)).signatures["serving_default"]
    names = state_names(step)
    outputs = []
    states = list(states)
    for t in range(x.shape[1]):
        feeds = {"x_t": tf.constant(x[:, t])}
        feeds.update({n: tf.constant(s) for n, s in zip(names, states)})
        result = serve(**feeds)
        values = [result[f"output_{i}"].numpy() for i in range(len(result))]
        outputs.append(values[0])
        states = values[1:]
    return np.stack(outputs, 1), states


def stream_onnx(path, step, states, x):
    import onnxruntime

    session = onnxruntime.InferenceSession(
        str(path), providers=["CPUExecutionProvider"]
    )
    names = ["x_t", *state_names(step)]
    outputs = []
    states = list(states)
    for t in range(x.shape[1]):
        values = session.run(None, dict(zip(names, [x[:, t], *states])))
        outputs.append(values[0])
        states = values[1:]
    return np.stack(outputs, 1), states


def stream_litert(path, step, states, x):
    from keras_rda.streaming.export import litert_interpreter

    runner = litert_interpreter(path).get_signature_runner("serving_default")
    names = state_names(step)
    outputs = []
    states = list(states)
    for t in range(x.shape[1]):
        feeds = {"x_t": x[:, t], **dict(zip(names, states))}
        result = runner(**feeds)
        values = [result[f"output_{i}"] for i in range(len(result))]
        outputs.append(values[0])
        states = values[1:]
    return np.stack(outputs, 1), states
