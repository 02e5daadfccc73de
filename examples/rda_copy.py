"""Copy task (RDA paper, section 6.3, Table 5).

Memorise the first 10 symbols of a 1000-step sequence and repeat them when a
recall marker appears somewhere later; output blank everywhere else.

    python examples/rda_copy.py --unit rda      # paper: accuracy > 0.999 in ~9800 steps
    python examples/rda_copy.py --quick
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
parser.add_argument("--steps", type=int, default=20000)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

if args.quick:
    task = get_task("copy", length=12, num_symbols=4, copy_length=3)
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:
    task = get_task("copy")  # 1000 steps, 10 symbols out of 8
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),
        UNITS[args.unit](units, return_sequences=True),
        keras.layers.Dense(task.num_classes),
    ]
)
clip = {} if args.unit == "rwa" else {"clipvalue": 1.0}
model.compile(
    optimizer=keras.optimizers.Adam(1e-3, **clip),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    weighted_metrics=["accuracy"],
)
model.fit(
    task.dataset(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
