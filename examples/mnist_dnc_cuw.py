"""Pixel-by-pixel (permuted) MNIST with DNC + Cached Uniform Writing (UW paper 3.5).

Le, Tran & Venkatesh (2019), section 3.5 and Table 3: each digit is read one
pixel per step (784 steps); a DNC with a single-layer 100-unit GRU
controller, 15 memory slots and Cached Uniform Writing with a cache of
L = 10 (so memory is written and read on every 10th step, with the
controller state replaced by the attention over the 10 cached states,
eq. 9-10), trained with RMSprop at learning rate 1e-4. The paper reports
99.1% (MNIST) and 96.3% (pMNIST) test accuracy for DNC+CUW, 98.6 / 95.6 for
DNC+UW and 98.1 / 94.0 for DNC (50,000 / 10,000 / 10,000 digits).

Data: `keras_rda.lab.datasets.mnist`, a local CSV through `KERAS_RDA_DATA_DIR`
(the shared 5,000-digit mnist_5k.csv.gz, split 80/20 into train/test by the
loader) or tensorflow-datasets; 10% of the training digits are held out for
validation and early stopping (patience 5). Every epoch is checkpointed
(`--checkpoint-dir`, see `keras_rda/lab/runs/early_stopping_fit.py`):
rerunning a killed command continues it.

    python examples/mnist_dnc_cuw.py                       # MNIST, DNC+CUW
    python examples/mnist_dnc_cuw.py --permuted            # pMNIST
    python examples/mnist_dnc_cuw.py --schedule uniform    # DNC+UW, interval 49
    python examples/mnist_dnc_cuw.py --quick               # seconds
"""

import argparse
import os

import keras
import numpy as np

import keras_rda
from keras_rda.lab.datasets import mnist
from keras_rda.lab.runs.early_stopping_fit import fit_with_early_stopping
from keras_rda.memory import CachedUniformWriting
from keras_rda.memory import RegularWriting
from keras_rda.memory import UniformWriting

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--permuted", action="store_true")
parser.add_argument(
    "--schedule",
    choices=("cached_uniform", "uniform", "regular"),
    default="cached_uniform",
)
parser.add_argument("--units", type=int, default=100, help="GRU controller units")
parser.add_argument("--memory-size", type=int, default=15)
parser.add_argument("--word-size", type=int, default=32)
parser.add_argument("--cache-size", type=int, default=10)
parser.add_argument(
    "--pool",
    type=int,
    default=1,
    help="average-pool k x k pixels first (784 / k^2 steps)",
)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--learning-rate", type=float, default=1e-4)
parser.add_argument(
    "--checkpoint-dir",
    help="checkpoints written after every epoch; rerunning the same command "
    "resumes (default: runs/mnist_dnc_cuw/[p]mnist-SCHEDULE; none with --quick)",
)
parser.add_argument("--quick", action="store_true", help="a few seconds on a CPU")
args = parser.parse_args()
if args.checkpoint_dir is None and not args.quick:
    variant = f"{'p' if args.permuted else ''}mnist-{args.schedule}"
    args.checkpoint_dir = os.path.join("runs", "mnist_dnc_cuw", variant)

if args.quick:
    args.units, args.memory_size, args.word_size, args.cache_size = 8, 3, 4, 4
    args.pool, args.epochs, args.batch_size, args.learning_rate = 7, 1, 32, 1e-3

if args.quick and not os.environ.get("KERAS_RDA_DATA_DIR"):
    rng = np.random.default_rng(0)  # random pixels: runs without any data
    x_train, y_train = rng.random((20, 784, 1), "float32"), rng.integers(0, 10, 20)
    x_test, y_test = x_train[:8], y_train[:8]
else:
    (x_train, y_train), (x_test, y_test) = mnist(permuted=args.permuted)
    if args.quick:
        x_train, y_train, x_test, y_test = (
            x_train[:20],
            y_train[:20],
            x_test[:8],
            y_test[:8],
        )


def pool(x, k):
    """Average-pools `[n, 784, 1]` pixel sequences over k x k blocks of the
    28 x 28 grid they are read from (for pMNIST: of the permuted order)."""
    if 28 % k:
        raise ValueError(
            "Received an invalid value for argument `pool`, expected a divisor "
            f"of 28, got {k}"
        )
    side = 28 // k
    blocks = x.reshape(len(x), side, k, side, k).mean(axis=(2, 4))
    return blocks.reshape(len(x), side * side, 1).astype("float32")


x_train, x_test = pool(x_train, args.pool), pool(x_test, args.pool)
steps = x_train.shape[1]
schedule = {
    "cached_uniform": CachedUniformWriting(args.cache_size),
    "uniform": UniformWriting(sequence_length=steps),
    "regular": RegularWriting(),
}[args.schedule]
print(
    f"{'p' if args.permuted else ''}MNIST: {len(x_train)} train / {len(x_test)} "
    f"test digits, {steps} steps; DNC {args.schedule}, GRU {args.units}, "
    f"{args.memory_size} slots, cache {args.cache_size}"
)

keras.utils.set_random_seed(0)
model = keras.Sequential(
    [
        keras.Input((steps, 1)),
        keras.layers.RNN(
            keras_rda.DNCCell(
                keras.layers.GRUCell(args.units),
                memory_size=args.memory_size,
                word_size=args.word_size,
                write_schedule=schedule,
                output_units=10,
            )
        ),
    ]
)
model.compile(
    optimizer=keras.optimizers.RMSprop(args.learning_rate),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
    run_eagerly=args.quick,  # tiny runs: eager beats tracing the graph
)
fit_with_early_stopping(
    model,
    x_train,
    y_train,
    epochs=args.epochs,
    batch_size=args.batch_size,
    validation_split=0.1,
    patience=5,
    checkpoint_dir=args.checkpoint_dir,
    fingerprint={
        k: v for k, v in vars(args).items() if k not in ("checkpoint_dir", "quick")
    },
)
print("test accuracy:", model.evaluate(x_test, y_test, verbose=0)[1])
