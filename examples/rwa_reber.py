"""Reber grammar (RWA paper, section 3.2, Figure 2).

Proofread sentences of the Reber grammar: 1 for valid ones, 0 for those with
one invalid jump (about half). Sentences are padded and masked.

    python examples/rwa_reber.py --unit rwa     # paper: 100% in < 100 steps
    python examples/rwa_reber.py --quick
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
parser.add_argument("--steps", type=int, default=1000)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

task = get_task("reber")
if args.quick:
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),  # one-hot B T P S X V E
        keras.layers.Masking(mask_value=0.0),
        UNITS[args.unit](units),
        keras.layers.Dense(2),
    ]
)
# The RWA paper: Adam 1e-3, batches of 100, no gradient clipping.
model.compile(
    optimizer=keras.optimizers.Adam(1e-3),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
model.fit(
    task.dataset(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
