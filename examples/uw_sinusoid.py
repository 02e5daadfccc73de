"""Sinusoid continuation, clean and noisy, with DNC + UW / CUW (UW paper 3.4).

Le, Tran & Venkatesh (2019), section 3.4 and Figure 3: a sinusoid
`y = 5 + A sin(2 pi f x + phi)` with random amplitude, frequency and phase
is read for T = 100 points, then the model generates the next 100 points
(regression, mean squared error over the generated points). In the noisy
task the points read carry U(-2, 2) noise; the targets stay clean.

A DNC with an LSTM controller of 100 units and 4 memory slots; `--model`
chooses regular writing (`dnc`), Uniform Writing (`dnc-uw`), Cached Uniform
Writing (`dnc-cuw`, cache 5) or a plain LSTM. Adam 1e-3, clipping 10,
batches of 64, 20,000 iterations. Predicting the centre line scores
31/6 ~ 5.17; after 20,000 iterations the paper reads about 1.05 (clean) and
1.39 (noisy) for LSTM, 0.44 / 0.98 for UW and 0.61 / 0.55 for CUW off
Figure 3.

    python examples/uw_sinusoid.py --model dnc-uw
    python examples/uw_sinusoid.py --model dnc-cuw --noisy
    python examples/uw_sinusoid.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.tasks import get_task

MODELS = ("dnc", "dnc-uw", "dnc-cuw", "lstm")

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--model", choices=MODELS, default="dnc-cuw")
parser.add_argument("--noisy", action="store_true", help="U(-2, 2) input noise")
parser.add_argument("--length", type=int, default=100, help="T, points read")
parser.add_argument("--steps", type=int, default=20000)
parser.add_argument("--quick", action="store_true", help="a few seconds on a CPU")
args = parser.parse_args()

name = "sinusoid-noisy" if args.noisy else "sinusoid"
if args.quick:
    task = get_task(name, length=6)
    units, memory_size, word_size, cache_size = 8, 4, 8, 2
    batch_size, steps, every, held_out = 8, 4, 2, 16
else:
    task = get_task(name, length=args.length)
    units, memory_size, word_size, cache_size = 100, 4, 64, 5
    batch_size, steps, every, held_out = 64, args.steps, 200, 1000

T = task.encoding_length
schedule = {
    "dnc": keras_rda.RegularWriting(),
    "dnc-uw": keras_rda.UniformWriting(sequence_length=T, encoding_steps=T),
    "dnc-cuw": keras_rda.CachedUniformWriting(cache_size, encoding_steps=T),
}
if args.model == "lstm":
    layers = [keras.layers.LSTM(units, return_sequences=True), keras.layers.Dense(1)]
else:
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(units),
        memory_size=memory_size,
        word_size=word_size,
        write_schedule=schedule[args.model],
        output_units=1,  # the next point, at every step
    )
    layers = [keras.layers.RNN(cell, return_sequences=True)]
print(f"{task!r}: read {T} points, generate {task.output_length}; {args.model}")

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((None, task.input_dim)), *layers])
model.compile(
    optimizer=keras.optimizers.Adam(1e-3, clipvalue=10.0),
    loss="mse",
    weighted_metrics=["mse"],  # over the generated points only
    run_eagerly=args.quick,
)
model.fit(
    task.batches(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
