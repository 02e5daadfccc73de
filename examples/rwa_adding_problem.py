"""Adding problem (RWA paper, section 3.5, Figure 5).

Two channels: an indicator marking two steps, and U[0, 1] values; predict
the sum of the two marked values. T = 100 (or 1000: `--length 1000`).
Baseline to beat: MSE 0.167 (always answering 1).

    python examples/rwa_adding_problem.py --unit rwa --length 1000
    python examples/rwa_adding_problem.py --quick
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
parser.add_argument("--unit", choices=sorted(UNITS), default="rwa")
parser.add_argument("--length", type=int, default=100)
parser.add_argument("--steps", type=int, default=20000)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

if args.quick:
    task = get_task("adding-problem", length=10)
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:
    task = get_task("adding-problem", length=args.length)
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),  # (indicator, value)
        UNITS[args.unit](units),
        keras.layers.Dense(1),
    ]
)
model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
model.fit(
    task.dataset(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
