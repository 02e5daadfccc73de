"""Raffel & Ellis's feed-forward attention on the addition and multiplication problems.

Raffel & Ellis (2016), sections 2.1-2.3 and Table 1: two values of a
sequence are marked; the target is their scaled sum (addition) or product
(multiplication), and an answer within 0.04 counts as correct. Sequences
have lengths in [T0, 1.1 T0] (`--length T0`) or, with `--variable`, any
length from 50 to 10,000 (section 2.3); each batch is zero-padded to its
longest sequence.

The model (section 2.1): `h_t = LReLU(W_xh x_t + b_xh)` at every step, then
attention pooling `c = sum_t alpha_t h_t` (eq. 1, `FeedForwardAttention`;
`--pooling mean` is the unweighted mean of eq. 2), then
`s = LReLU(W_cs c + b_cs)` and `y = LReLU(W_sy s + b_sy)`, D = 100 units,
leaky slope 0.01, weights N(0, 1 / fan_in). Like the paper's model it pools
over the padding (see docs/papers/ffa.md). Adam, batches of
100, epochs of 1,000 updates; the paper reports the epochs until every
held-out sequence is correct (Table 1: addition at T0 = 1000 in 1 epoch
with attention, 2 with the mean).

    python examples/ffa_long_term_memory.py --problem addition --length 1000
    python examples/ffa_long_term_memory.py --problem multiplication --variable
    python examples/ffa_long_term_memory.py --pooling mean --learning-rate 1e-2
    python examples/ffa_long_term_memory.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.tasks import get_task
from keras_rda.layers.feed_forward_attention import paper_initializer

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument(
    "--problem", choices=("addition", "multiplication"), default="addition"
)
parser.add_argument("--variable", action="store_true", help="lengths 50 to 10,000")
parser.add_argument("--length", type=int, default=1000, help="T0 (fixed length)")
parser.add_argument("--pooling", choices=("attention", "mean"), default="attention")
parser.add_argument("--epochs", type=int, default=10, help="of 1,000 updates")
parser.add_argument("--learning-rate", type=float, default=3e-3)
parser.add_argument("--quick", action="store_true", help="a few seconds on a CPU")
args = parser.parse_args()

name = f"ffa-{args.problem}" + ("-variable" if args.variable else "")
if args.quick:
    lengths = {"min_length": 30, "max_length": 60}
    units, batch_size, every, held_out, args.epochs = 16, 16, 4, 64, 2
else:
    lengths = {} if args.variable else {"min_length": args.length}
    units, batch_size, every, held_out = 100, 100, 1000, 1000
task = get_task(name, **lengths)
print(f"{task!r}; {args.pooling} pooling")


def dense(units, name):
    """Section 2.1's layers: N(0, 1 / fan_in) weights, zero biases."""
    return keras.layers.Dense(units, kernel_initializer=paper_initializer(), name=name)


def leaky_relu():
    return keras.layers.LeakyReLU(negative_slope=0.01)


pooling = {
    "attention": keras_rda.FeedForwardAttention,  # eq. 1
    "mean": keras.layers.GlobalAveragePooling1D,  # eq. 2
}[args.pooling]

keras.utils.set_random_seed(0)
model = keras.Sequential(
    [
        keras.Input((None, task.input_dim)),
        dense(units, "h"),
        leaky_relu(),
        pooling(name="pooling"),
        dense(units, "s"),
        leaky_relu(),
        dense(1, "y"),
        leaky_relu(),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(args.learning_rate),
    loss="mse",
    metrics=task.keras_metrics(),  # MSE and accuracy (|error| < 0.04)
)
model.fit(
    task.batches(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=args.epochs,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
