"""Addition (RDA paper, section 6.3, Table 1).

Two channels over 1000 steps: U[0, 1] values and a marker that picks two of
them; predict their sum. Guessing 1 scores MSE 0.167; the paper counts the
steps until the loss is below 0.001.

    python examples/rda_addition.py --unit rda    # paper: ~2000 steps
    python examples/rda_addition.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.tasks import get_task

UNITS = {
    "rda": keras_rda.RDA,
    "rwa": keras_rda.RWA,
    "lstm": keras.layers.LSTM,
    "gru": keras.layers.GRU,
}

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--unit", choices=sorted(UNITS), default="rda")
parser.add_argument("--steps", type=int, default=10000)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

if args.quick:
    task = get_task("addition", length=10)
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:
    task = get_task("addition")  # T = 1000
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),  # (value, marker)
        UNITS[args.unit](units),  # last output only
        keras.layers.Dense(1),
    ]
)
clip = {} if args.unit == "rwa" else {"clipvalue": 1.0}
model.compile(optimizer=keras.optimizers.Adam(1e-3, **clip), loss="mse")
model.fit(
    task.dataset(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
