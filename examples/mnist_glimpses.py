"""MNIST with fixed glimpses (WeiNet paper, "fixated attention", Table 3).

Each digit is read in five recurrent steps: the whole 28x28 image first (the
paper's Figure 4: "the whole 28x28 image is input to the controller first"),
then its four non-overlapping quadrants, top-left, top-right, bottom-left,
bottom-right. Every step is mapped to the same size by a glimpse network (a
Dense layer for the whole image, one shared Dense layer for the quadrants,
the appendix's `h_g = W_g x_glimpse`), and the recurrent unit composes them.

The paper's text calls the fixed glimpses "7x7 sub-images" and also "the
four non-overlapping quarters of a 28x28 image", which are 14x14; we use the
quarters at full resolution (14x14 = 196 pixels each), so no pixel is lost.

    python examples/mnist_glimpses.py                    # WeiNet, H = 256
    python examples/mnist_glimpses.py --unit fw-ln
    python examples/mnist_glimpses.py --unit lstm --epochs 20
    python examples/mnist_glimpses.py --quick            # seconds, random pixels

Data: `keras_rda.lab.datasets.mnist` (a local CSV through `KERAS_RDA_DATA_DIR`,
e.g. the 5,000-digit mnist_5k.csv.gz, or tensorflow-datasets). Settings of
the paper's appendix: Adam 1e-3 decayed by 0.98 per epoch down to 1e-4,
batch 32, hidden size 256. The paper's fixed-glimpse test errors are 0.85%
(FW-LN) and 0.91% (WeiNet) on the full MNIST.
"""

import argparse

import keras
from keras import ops

import keras_rda
from keras_rda.lab.datasets import mnist

UNITS = {
    "weinet": lambda n: keras_rda.WeiNetCell(n),
    "fw-ln": lambda n: keras_rda.FastWeightsCell(n),
    "lstm": lambda n: keras.layers.LSTMCell(n),
    "lstm-ln": lambda n: keras_rda.LayerNormLSTMCell(n),
    "rhn": lambda n: keras_rda.RecurrentHighwayCell(n, layer_norm=True),
}


class DecayWithFloor(keras.optimizers.schedules.LearningRateSchedule):
    """`max(initial * rate ** (step / decay_steps), floor)` (the appendix's
    learning rate: 1e-3 decayed by 0.98, never below 1e-4)."""

    def __init__(self, initial, decay_steps, rate, floor):
        self.initial, self.decay_steps = initial, decay_steps
        self.rate, self.floor = rate, floor

    def __call__(self, step):
        exponent = ops.cast(step, "float32") / self.decay_steps
        return ops.maximum(self.initial * self.rate**exponent, self.floor)

    def get_config(self):
        return dict(
            initial=self.initial,
            decay_steps=self.decay_steps,
            rate=self.rate,
            floor=self.floor,
        )


def glimpses(images):
    """`[batch, 28, 28]` -> the whole image `[batch, 784]` and the four
    quadrants `[batch, 4, 196]` (top-left, top-right, bottom-left,
    bottom-right)."""
    whole = ops.reshape(images, (-1, 28 * 28))
    quadrants = [
        images[:, rows, cols]
        for rows in (slice(0, 14), slice(14, 28))
        for cols in (slice(0, 14), slice(14, 28))
    ]
    quadrants = ops.stack([ops.reshape(q, (-1, 14 * 14)) for q in quadrants], axis=1)
    return whole, quadrants


def build_model(unit, units):
    """Glimpse network + recurrent unit over 5 steps + linear read-out."""
    images = keras.Input((28, 28), name="images")
    whole, quadrants = keras.layers.Lambda(
        lambda x: glimpses(x), output_shape=[(784,), (4, 196)], name="glimpses"
    )(images)
    first = keras.layers.Dense(units, activation="relu", name="whole_image_net")(whole)
    rest = keras.layers.Dense(units, activation="relu", name="glimpse_net")(quadrants)
    steps = keras.layers.Concatenate(axis=1)(
        [keras.layers.Reshape((1, units))(first), rest]
    )
    hidden = keras.layers.RNN(UNITS[unit](units), name="rnn")(steps)
    logits = keras.layers.Dense(10, name="readout")(hidden)
    return keras.Model(images, logits, name=f"mnist_glimpses_{unit}")


parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--unit", choices=sorted(UNITS), default="weinet")
parser.add_argument("--units", type=int, default=256)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument(
    "--quick", action="store_true", help="a few seconds on random pixels"
)
args = parser.parse_args()

if args.quick:
    import numpy as np

    rng = np.random.default_rng(0)
    x_train = rng.random((16, 28, 28), "float32")
    y_train = rng.integers(0, 10, 16)
    x_test, y_test = x_train[:8], y_train[:8]
    units, epochs, batch_size = 4, 1, 8
else:
    (x_train, y_train), (x_test, y_test) = mnist()
    x_train, x_test = x_train.reshape(-1, 28, 28), x_test.reshape(-1, 28, 28)
    units, epochs, batch_size = args.units, args.epochs, 32

model = build_model(args.unit, units)
steps_per_epoch = -(-len(x_train) // batch_size)
model.compile(
    optimizer=keras.optimizers.Adam(DecayWithFloor(1e-3, steps_per_epoch, 0.98, 1e-4)),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    validation_data=(x_test, y_test),
    verbose=2,
)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"{args.unit}: test accuracy {accuracy:.4f} (error {100 * (1 - accuracy):.2f}%)")
