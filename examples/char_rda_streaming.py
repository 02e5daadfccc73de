"""A character model with padded text, streamed token by token in LiteRT.

Trains `Embedding(mask_zero=True) -> RDA -> Dense` to predict the next byte
of text (byte b is token b + 1; token 0 pads windows that start before the
text, on the left, so every window has the same length), then makes its
streaming step model (`keras_rda.streaming.step_model`), exports it to
LiteRT with builtin ops only, and in the LiteRT interpreter feeds a prompt
one token at a time (a padding token among them, which keeps the state)
and generates text one byte at a time, checking the first steps against
the Keras step model.

Data: the first bytes of enwik8 (`enwik6`, or `enwik8`) in
`KERAS_RDA_DATA_DIR` or `--data PATH`; without either, a short built-in
text.

    KERAS_RDA_DATA_DIR=/path/to/data python examples/char_rda_streaming.py
    python examples/char_rda_streaming.py --quick
"""

import argparse
import os
import pathlib
import tempfile

import keras
import numpy as np

import keras_rda
from keras_rda import streaming
from keras_rda.streaming import export

BUILT_IN_TEXT = (
    "The Recurrent Discounted Attention unit keeps a running average of "
    "features weighted by attention, and discounts the past at every step, "
    "so that it can forget what it no longer needs. "
) * 8

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument(
    "--data", help="a text file (default: enwik6 or enwik8 in KERAS_RDA_DATA_DIR)"
)
parser.add_argument(
    "--bytes", type=int, default=200_000, help="bytes of text to train on"
)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--generate", type=int, default=200, help="bytes to generate")
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()


def text_path():
    if args.data:
        return pathlib.Path(args.data)
    directory = os.environ.get("KERAS_RDA_DATA_DIR")
    for name in ("enwik6", "enwik8"):
        if directory and (pathlib.Path(directory) / name).is_file():
            return pathlib.Path(directory) / name
    return None


size = 4_000 if args.quick else args.bytes
path = text_path()
text = path.read_bytes()[:size] if path else BUILT_IN_TEXT.encode()[:size]
tokens = np.frombuffer(text, dtype="uint8").astype("int32") + 1  # 0 pads

if args.quick:
    window, units, width, batch_size, epochs = 16, 16, 8, 32, 1
else:
    window, units, width, batch_size, epochs = 100, 256, 32, 64, args.epochs


def windows(ids, length, stride):
    """`(inputs, targets)` `[count, length]`: next-byte prediction, the
    first windows left-padded with 0 (the loss skips padded steps: Keras
    masks it with the Embedding's mask)."""
    padded = np.concatenate([np.zeros(length - 1, "int32"), ids])
    starts = np.arange(0, len(ids) - 1, stride)
    inputs = np.stack([padded[s : s + length] for s in starts])
    targets = np.stack([padded[s + 1 : s + length + 1] for s in starts])
    return inputs, targets


split = int(0.9 * len(tokens))
x_train, y_train = windows(tokens[:split], window, window // 2)
x_val, y_val = windows(tokens[split:], window, window)

model = keras.Sequential(
    [
        keras.Input((None,), dtype="int32"),
        keras.layers.Embedding(257, width, mask_zero=True),
        keras_rda.RDA(units, return_sequences=True),
        keras.layers.Dense(257),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(3e-3, clipnorm=1.0),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    validation_data=(x_val, y_val),
    verbose=2,
)

# The step model: token ids [batch] and the RDA's stream state in, logits
# [batch, 257] and the new state out; exported with LiteRT builtins only.
step = streaming.step_model(model)
directory = tempfile.mkdtemp()
tflite_path = export.export_litert(step, os.path.join(directory, "char_rda.tflite"))
runner = export.litert_interpreter(tflite_path).get_signature_runner("serving_default")
state_names = [tensor.name for tensor in step.inputs[1:]]


def litert_step(token, states):
    """One token through the LiteRT file: `(logits [1, 257], states)`."""
    feeds = {"x_t": np.array([token], "int32"), **dict(zip(state_names, states))}
    result = runner(**feeds)
    values = [result[f"output_{i}"] for i in range(len(result))]
    return values[0], values[1:]


# A prompt from the held-out text, with a padding token inside: it keeps
# the state, so the stream is the prompt's.
prompt = list(tokens[split : split + window // 2])
prompt.insert(len(prompt) // 2, 0)
states = streaming.initial_states(step, 1)
keras_states = list(states)
for t, token in enumerate(prompt):
    logits, states = litert_step(token, states)
    if t < 8:  # the interpreter computes what Keras computes
        outputs = step([np.array([token], "int32"), *keras_states])
        want, *keras_states = [np.asarray(value) for value in outputs]
        np.testing.assert_allclose(logits, want, rtol=1e-4, atol=1e-4)

rng = np.random.default_rng(0)
generated = []
for _ in range(20 if args.quick else args.generate):
    probabilities = np.exp(logits[0, 1:] - logits[0, 1:].max())  # no padding
    token = 1 + rng.choice(256, p=probabilities / probabilities.sum())
    generated.append(token - 1)
    logits, states = litert_step(token, states)

print("prompt:   ", bytes(t - 1 for t in prompt if t).decode("utf-8", "replace"))
print("generated:", bytes(generated).decode("utf-8", "replace"))
print(f"LiteRT file: {tflite_path} ({os.path.getsize(tflite_path) / 1024:.0f} KiB)")
