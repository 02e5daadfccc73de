"""The UW paper's synthetic tasks with DNC, DNC + UW and DNC + CUW (sections 3.1-3.3).

Le, Tran & Venkatesh (2019): read `T` integers (one-hot, 1-10; 1-50 for
max), then an end-of-sequence marker, then emit the task's output sequence
(double: the input twice; copy; reverse; add: floor((x_t + x_{T+1-t}) / 2);
max: the maximum of each pair). The model is a DNC with an LSTM controller
of 100 units, 4 memory slots and one read head; the write schedule
decides when the memory is accessed while reading the input:

- `dnc`: every step (regular writing);
- `dnc-uw`: Uniform Writing, every floor(T / (D + 1)) steps (eq. 8);
- `dnc-cuw`: Cached Uniform Writing, a cache of L = 5 controller states
  summarised by attention before each write (Algorithm 1, eq. 9-10);
- `lstm`: the paper's LSTM baseline without memory.

From the end-of-sequence marker on, every schedule accesses memory every
step. Adam 1e-3, gradient clipping 10, batches of 64, 10,000 iterations, as
in section 3.2; accuracy counts the decoding steps only. The paper reports,
at T = 50, copy: DNC 68.0%, DNC+UW 97.7%, DNC+CUW 83.8%, LSTM 15.6%
(Table 1).

    python examples/uw_synthetic_tasks.py --task copy --model dnc-uw
    python examples/uw_synthetic_tasks.py --task max --model dnc-cuw --length 50
    python examples/uw_synthetic_tasks.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.tasks import get_task

TASKS = ("double", "copy", "reverse", "add", "max")
MODELS = ("dnc", "dnc-uw", "dnc-cuw", "lstm")

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--task", choices=TASKS, default="copy")
parser.add_argument("--model", choices=MODELS, default="dnc-uw")
parser.add_argument("--length", type=int, default=50, help="T, values read")
parser.add_argument("--steps", type=int, default=10000)
parser.add_argument("--quick", action="store_true", help="a few seconds on a CPU")
args = parser.parse_args()

if args.quick:
    task = get_task(f"uw-{args.task}", length=6)
    units, memory_size, word_size, cache_size = 8, 4, 8, 2
    batch_size, steps, every, held_out = 8, 4, 2, 16
else:
    task = get_task(f"uw-{args.task}", length=args.length)
    units, memory_size, word_size, cache_size = 100, 4, 64, 5
    batch_size, steps, every, held_out = 64, args.steps, 200, 1000

T = task.encoding_length  # the steps the write schedule governs
schedule = {
    "dnc": keras_rda.RegularWriting(),
    "dnc-uw": keras_rda.UniformWriting(sequence_length=T, encoding_steps=T),
    "dnc-cuw": keras_rda.CachedUniformWriting(cache_size, encoding_steps=T),
}
if args.model == "lstm":
    recurrent = keras.layers.LSTM(units, return_sequences=True)
    head = [keras.layers.Dense(task.num_classes)]
else:
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(units),
        memory_size=memory_size,
        word_size=word_size,
        num_read_heads=1,
        write_schedule=schedule[args.model],
        output_units=task.num_classes,  # y_t = W_y [o_t, r_t] + b_y: logits
    )
    recurrent = keras.layers.RNN(cell, return_sequences=True)
    head = []
print(f"{task!r}: {task.sequence_length} steps, model {args.model}")

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((None, task.input_dim)), recurrent, *head])
model.compile(
    optimizer=keras.optimizers.Adam(1e-3, clipvalue=10.0),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    weighted_metrics=["accuracy"],  # over the decoding steps (sample_weight)
    run_eagerly=args.quick,  # tiny runs: eager beats tracing the graph
)
model.fit(
    task.batches(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=steps // every,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
