"""Sequential and permuted MNIST (RDA paper, Tables 3-4; RWA paper, section 3.6).

Each digit is read one pixel per step (784 steps, values in [0, 1]); with
`--permuted` the pixels go through one fixed random permutation. Data: a
local CSV through `KERAS_RDA_DATA_DIR` (e.g. the 5,000-digit
mnist_5k.csv.gz) or tensorflow-datasets.

    python examples/sequential_mnist.py --unit rda             # paper: 0.987
    python examples/sequential_mnist.py --unit rwa --permuted  # paper: 0.899
    python examples/sequential_mnist.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.datasets import mnist

UNITS = {
    "rda": keras_rda.RDA,
    "rwa": keras_rda.RWA,
    "lstm": keras.layers.LSTM,
    "gru": keras.layers.GRU,
}

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--unit", choices=sorted(UNITS), default="rda")
parser.add_argument("--permuted", action="store_true")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

if args.quick:  # random pixels: runs without any data
    import numpy as np

    rng = np.random.default_rng(0)
    x_train, y_train = rng.random((16, 784, 1), "float32"), rng.integers(0, 10, 16)
    x_test, y_test = x_train[:8], y_train[:8]
    units, epochs = 4, 1
else:
    (x_train, y_train), (x_test, y_test) = mnist(permuted=args.permuted)
    units, epochs = 250, args.epochs

model = keras.Sequential(
    [
        keras.Input((784, 1)),
        UNITS[args.unit](units),
        keras.layers.Dense(10),
    ]
)
clip = {} if args.unit == "rwa" else {"clipvalue": 1.0}
model.compile(
    optimizer=keras.optimizers.Adam(1e-3, **clip),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
model.fit(
    x_train,
    y_train,
    batch_size=100,
    epochs=epochs,
    validation_data=(x_test, y_test),
    verbose=2,
)
print("test accuracy:", model.evaluate(x_test, y_test, verbose=0)[1])
