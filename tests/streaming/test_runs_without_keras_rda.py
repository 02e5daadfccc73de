"""Exported step artifacts run in their runtimes without keras_rda.

A user deploys the SavedModel, ONNX or LiteRT file to a machine that has
only the runtime. The artifacts are exported here, then streamed in a fresh
Python process in which `import keras_rda` fails; its outputs and final
states must equal the Keras step model's.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from keras_rda import streaming
from keras_rda.streaming import export
from tests.conftest import REPO_ROOT
from tests.streaming import helpers
from tests.streaming import units

pytestmark = pytest.mark.tensorflow_only

UNIT = "DNC uniform"  # memory, a schedule's step counter and builtin forms

RUNNER = r"""
import importlib.abc, json, sys
import numpy as np


class NoKerasRda(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "keras_rda":
            raise ImportError(f"{name} is not installed on this machine")


sys.meta_path.insert(0, NoKerasRda())
folder, names = sys.argv[1], json.loads(sys.argv[2])
data = np.load(f"{folder}/inputs.npz")
x, states = data["x"], [data[f"s{i}"] for i in range(len(names))]


def stream(run):
    outputs, carried = [], list(states)
    for t in range(x.shape[1]):
        y, *carried = run(x[:, t], carried)
        outputs.append(np.asarray(y))
    return np.stack(outputs, 1), [np.asarray(s) for s in carried]


import onnxruntime

session = onnxruntime.InferenceSession(
    f"{folder}/model.onnx", providers=["CPUExecutionProvider"]
)
onnx_out = stream(
    lambda x_t, s: session.run(None, dict(zip(["x_t", *names], [x_t, *s])))
)

from ai_edge_litert.interpreter import Interpreter

interpreter = Interpreter(model_path=f"{folder}/model.tflite", num_threads=1)
runner = interpreter.get_signature_runner("serving_default")


def litert_step(x_t, s):
    result = runner(x_t=x_t, **dict(zip(names, s)))
    return [result[f"output_{i}"] for i in range(len(result))]


litert_out = stream(litert_step)

import tensorflow as tf

serve = tf.saved_model.load(f"{folder}/saved_model").signatures["serving_default"]


def saved_model_step(x_t, s):
    feeds = {"x_t": tf.constant(x_t), **{n: tf.constant(v) for n, v in zip(names, s)}}
    result = serve(**feeds)
    return [result[f"output_{i}"].numpy() for i in range(len(result))]


saved_out = stream(saved_model_step)
leaked = sorted(m for m in sys.modules if m.split(".")[0] == "keras_rda")
np.savez(
    f"{folder}/outputs.npz",
    **{f"{fmt}_y": out[0] for fmt, out in
       (("onnx", onnx_out), ("litert", litert_out), ("saved_model", saved_out))},
    **{f"{fmt}_s{i}": s for fmt, out in
       (("onnx", onnx_out), ("litert", litert_out), ("saved_model", saved_out))
       for i, s in enumerate(out[1])},
)
print("LEAKED" + json.dumps(leaked))
"""


def test_exported_artifacts_stream_without_keras_rda(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("ai_edge_litert")
    step = streaming.step_model(units.sequence_model(UNIT))
    export.export_onnx(step, tmp_path / "model.onnx")
    export.export_litert(step, tmp_path / "model.tflite")
    export.export_saved_model(step, tmp_path / "saved_model")
    x = np.random.RandomState(0).randn(2, units.STEPS, units.FEATURES)
    x = x.astype("float32")
    states = streaming.initial_states(step, 2)
    np.savez(
        tmp_path / "inputs.npz",
        x=x,
        **{f"s{i}": np.asarray(s) for i, s in enumerate(states)},
    )
    expected, expected_states = helpers.stream_keras(step, states, x)

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    names = helpers.state_names(step)
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, str(tmp_path), json.dumps(names)],
        cwd=tmp_path,  # not the checkout: its keras_rda is not on the path
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    leaked = json.loads(result.stdout.splitlines()[-1][len("LEAKED") :])
    assert leaked == []
    got = np.load(tmp_path / "outputs.npz")
    for fmt in ("onnx", "litert", "saved_model"):
        np.testing.assert_allclose(got[f"{fmt}_y"], expected, atol=2e-5)
        for i, state in enumerate(expected_states):
            np.testing.assert_allclose(
                got[f"{fmt}_s{i}"], state, atol=2e-5, rtol=1e-5, err_msg=fmt
            )
    assert str(REPO_ROOT) not in result.stdout
