"""Associative recall with WeiNet, fast weights (FW-LN) and LSTM (WeiNet paper).

Zhang & Zhou, "Associative Recall task" and Table 1 (after Ba et al. 2016,
section 4.1): a sequence of (letter, digit) pairs, then "??" and one of the
letters; the model answers the digit that followed it ("c9k8j3f1??k" ->
8). One recurrent layer of 50 units reads the characters (one-hot over 37
symbols), a linear read-out of its last output gives 10 logits.

- `weinet`: `WeiNetCell`, a learned auto-associative memory (eq. 2, 5-7);
  `--update row_col` is Figure 3's row x column update;
- `fw-ln`: `FastWeightsCell`, Ba et al.'s fast weights with layer norm;
- `lstm`: `keras.layers.LSTMCell`.

The paper trains with Adam 1e-4, batches of 128 and gradient clipping to
[-5, 5] on 100,000 sequences per epoch, at lengths 9, 30 and 50; WeiNet and
FW-LN reach 100% at every length, LSTM only at length 9.

    python examples/weinet_associative_recall.py --model weinet --length 9
    python examples/weinet_associative_recall.py --model fw-ln --learning-rate 3e-3
    python examples/weinet_associative_recall.py --quick
"""

import argparse

import keras

import keras_rda
from keras_rda.lab.tasks import get_task

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--model", choices=("weinet", "fw-ln", "lstm"), default="weinet")
parser.add_argument(
    "--update", choices=("elementwise", "row_col", "gated"), default="elementwise"
)
parser.add_argument("--length", type=int, default=9, help="characters (9, 30, 50)")
parser.add_argument("--epochs", type=int, default=30, help="of 782 batches")
parser.add_argument("--learning-rate", type=float, default=1e-4)
parser.add_argument("--quick", action="store_true", help="a few seconds on a CPU")
args = parser.parse_args()

task = get_task("associative-recall", length=args.length)
units, batch_size, every, held_out = 50, 128, 782, 10000
if args.quick:
    units, batch_size, every, held_out, args.epochs = 8, 16, 2, 32, 2

cell = {
    "weinet": lambda: keras_rda.WeiNetCell(units, update=args.update),
    "fw-ln": lambda: keras_rda.FastWeightsCell(units),
    "lstm": lambda: keras.layers.LSTMCell(units),
}[args.model]()
print(f"{task!r}: {task.length} characters; {type(cell).__name__}({units})")

keras.utils.set_random_seed(0)
model = keras.Sequential(
    [
        keras.Input((task.length, task.input_dim)),
        keras.layers.RNN(cell),
        keras.layers.Dense(task.num_classes),  # logits of the digit
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(args.learning_rate, clipvalue=5.0),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
model.fit(
    task.batches(batch_size, seed=0),
    steps_per_epoch=every,
    epochs=args.epochs,
    validation_data=task.held_out(held_out),
    shuffle=False,  # the stream is already random
    verbose=2,
)
