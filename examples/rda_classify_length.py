"""Classify length (RDA paper, section 6.3, Table 2; RWA paper, section 3.3).

Is a sequence of 1..1000 steps longer than 500? Sequences are zero-padded
to 1000 steps and the padding is masked, so the unit sees only real steps.
The paper lets every unit learn its initial state on this task.

    python examples/rda_classify_length.py --unit rda   # paper: acc 1.0, ~400 steps
    python examples/rda_classify_length.py --rwa-paper  # the RWA paper's variant (0..T)
    python examples/rda_classify_length.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.tasks import get_task

UNITS = {
    "rda": lambda n: keras_rda.RDA(n, learn_initial_state=True),
    "rwa": lambda n: keras_rda.RWA(n),  # learns its initial state s0
    "lstm": keras.layers.LSTM,
    "gru": keras.layers.GRU,
}

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--unit", choices=sorted(UNITS), default="rda")
parser.add_argument(
    "--rwa-paper",
    action="store_true",
    help="lengths 0..T as the RWA paper (task classify-by-length)",
)
parser.add_argument("--steps", type=int, default=2000)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

name = "classify-by-length" if args.rwa_paper else "classify-length"
if args.quick:
    task = get_task(name, max_length=12)
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:
    task = get_task(name)  # T = 1000
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),
        keras.layers.Masking(mask_value=0.0),  # padded steps are all-zero inputs
        UNITS[args.unit](units),
        keras.layers.Dense(2),
    ]
)
clip = {} if args.unit == "rwa" else {"clipvalue": 1.0}
model.compile(
    optimizer=keras.optimizers.Adam(1e-3, **clip),
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
