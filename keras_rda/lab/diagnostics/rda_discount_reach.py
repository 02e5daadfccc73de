"""How much of a sequential-MNIST digit reaches an untrained RDA's last output.

Checks the RDA paper's discount gate (section 5,
`gamma_t = sigmoid(W_gamma [x_t, h_{t-1}] + b_gamma)`) at the paper's start
(`b_gamma = 1`, section 6.1: 0.73 per step) on sequential MNIST. A digit read
pixel by pixel (784 steps) ends on blank rows, over a hundred steps after its
last ink pixel (the record's note gives the median), and on those steps the
discount multiplies the past by about `sigmoid(b_gamma)`.

This module computes, at initialisation, the gradient of a fixed random
read-out of the last output with respect to every pixel,
`|d (r . o_T) / d x_t|`, for the RDA (250 units, the paper's
initialisation) with the discount bias started at several values, and for
the RWA. Per digit: the mean over the digit's middle rows (rows 8-19,
steps 224-559) and the value at its last ink pixel; the table gives the
median over the digits.

Run (TensorFlow; data from `KERAS_RDA_DATA_DIR`):

    python -m keras_rda.lab.diagnostics.rda_discount_reach \
        --json results/rda_paper/rda-discount-reach.json
"""

import argparse

import keras
import numpy as np

import keras_rda
from keras_rda.lab.datasets.mnist import mnist
from keras_rda.lab.reporting.report import write_script_table

MIDDLE_ROWS = slice(8 * 28, 20 * 28)  # rows 8-19 of the 28x28 digit


def reach(layer, x, seed):
    """`(middle_rows, last_ink)`: the median over the digits `x` `[batch, 784,
    1]` of `|d (r . o_T) / d x_t|` on the middle rows and at the last ink
    pixel, `o_T` the sequence `layer`'s output, `r` a read-out drawn from
    `seed`."""
    import tensorflow as tf

    inputs = tf.constant(x)
    readout = tf.constant(np.random.default_rng(seed).standard_normal(layer.units))
    layer.build(inputs.shape)

    @tf.function  # one graph of the 784-step loop and its gradient, not eager steps
    def input_gradient(inputs):
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            output = layer(inputs)
            score = tf.reduce_sum(output * tf.cast(readout, output.dtype), axis=-1)
        return tape.gradient(score, inputs)

    gradient = np.abs(input_gradient(inputs).numpy()[:, :, 0])  # [b, 784]
    last_ink = np.array([np.flatnonzero(row[:, 0]).max() for row in x])
    middle = gradient[:, MIDDLE_ROWS].mean(axis=1)
    at_last = gradient[np.arange(len(x)), last_ink]
    return float(np.median(middle)), float(np.median(at_last))


def rda(units, discount_bias, seed):
    keras.utils.set_random_seed(seed)
    initializer = keras.initializers.Constant(discount_bias)
    return keras_rda.RDA(units, discount_bias_initializer=initializer)


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--digits", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--discount-biases", type=float, nargs="+", default=[1.0, 2.0, 3.0, 4.0, 5.0]
    )
    parser.add_argument("--json", metavar="PATH", help="write the table record")
    args = parser.parse_args(argv)
    for flag in ("units", "digits"):
        if getattr(args, flag) < 1:
            parser.error(
                f"--{flag} must be a positive integer, got {getattr(args, flag)}"
            )
    return args


def main(argv=None):
    args = parse(argv)
    if keras.backend.backend() != "tensorflow":
        raise SystemExit("rda_discount_reach differentiates with tf.GradientTape")
    (x, _), _ = mnist()
    x = x[: args.digits]
    blank_tail = [783 - np.flatnonzero(row[:, 0]).max() for row in x]
    rows = []
    for bias in args.discount_biases:
        gamma = 1.0 / (1.0 + np.exp(-bias))
        middle, last = reach(rda(args.units, bias, args.seed), x, args.seed)
        label = "RDA (paper, section 6.1)" if bias == 1.0 else "RDA"
        rows.append(
            [label, f"{bias:g}", f"{gamma:.3f}", f"{middle:.1e}", f"{last:.1e}"]
        )
    keras.utils.set_random_seed(args.seed)
    middle, last = reach(keras_rda.RWA(args.units), x, args.seed)
    rows.append(["RWA", "", "", f"{middle:.1e}", f"{last:.1e}"])
    columns = [
        "unit",
        "discount bias b",
        "sigmoid(b)",
        "middle rows",
        "last ink pixel",
    ]
    notes = [
        f"Untrained layers of {args.units} units (seed {args.seed}), the first "
        f"{args.digits} digits of the training split; median over digits of "
        "|d (r . o_T) / d x_t|, r a fixed random read-out; middle rows: the "
        "mean over steps 224-559 (rows 8-19). The digits end on a median of "
        f"{np.median(blank_tail):.0f} blank steps after their last ink pixel.",
    ]
    for row in rows:
        print(" | ".join(row))
    for note in notes:
        print(note)
    write_script_table(args.json, "rda_discount_reach", columns, rows, notes, argv)


if __name__ == "__main__":
    main()
