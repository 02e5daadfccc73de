"""Multiple sequence copy (RDA paper, section 6.4, Table 6).

Fifty copy tasks follow each other in one 1000-step sequence. The RDA can
discount what it has already answered; the RWA cannot forget, and stalls.

    python examples/rda_multicopy.py --unit rda     # paper: > 0.99 in ~1300 steps
    python examples/rda_multicopy.py --unit rwa     # paper: not in 10000 steps
    python examples/rda_multicopy.py --quick        # a few seconds, checks it runs
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

if args.quick:  # 2 copies of 3 symbols, 8 units, 4 steps.
    task = get_task(
        "multicopy", num_copies=2, block_length=10, num_symbols=4, copy_length=3
    )
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:  # The paper: 250 units, batches of 100.
    task = get_task("multicopy")
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),  # one-hot symbols, blank, marker
        UNITS[args.unit](units, return_sequences=True),
        keras.layers.Dense(task.num_classes),  # a symbol (or blank) per step
    ]
)
clip = {} if args.unit == "rwa" else {"clipvalue": 1.0}  # RWA paper: no clipping
model.compile(
    optimizer=keras.optimizers.Adam(1e-3, **clip),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    weighted_metrics=["accuracy"],  # over every step
)
model.fit(
    task.dataset(batch_size, seed=0),  # endless fresh batches
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),  # (x, y, sample_weight)
    shuffle=False,  # the stream is already random
    verbose=2,
)
