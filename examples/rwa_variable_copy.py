"""Variable copy problem (RWA paper, section 3.4, Figure 4).

K = 8 symbols, S = 10 to memorise, then T = 100 (or 1000: `--blanks 1000`)
blanks one of which is the delimiter after which the S symbols must be
repeated. Baseline to beat: cross-entropy S ln K / (2S + T).

    python examples/rwa_variable_copy.py --unit rwa
    python examples/rwa_variable_copy.py --quick
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
parser.add_argument("--blanks", type=int, default=100)
parser.add_argument("--steps", type=int, default=50000)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()

if args.quick:
    task = get_task("variable-copy", blank_length=6, num_symbols=4, copy_length=3)
    units, batch_size, steps, every, held_out = 8, 8, 4, 2, 16
else:
    task = get_task("variable-copy", blank_length=args.blanks)
    units, batch_size, steps, every, held_out = 250, 100, args.steps, 100, 1000
print(f"baseline to beat: cross-entropy {task.baseline:.4f}")

model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),
        UNITS[args.unit](units, return_sequences=True),
        keras.layers.Dense(task.num_classes),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(1e-3),
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
