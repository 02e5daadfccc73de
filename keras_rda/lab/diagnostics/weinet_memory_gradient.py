"""The gradient through WeiNet's memory at initialisation, by recall length.

WeiNet (Zhang & Zhou) stores associative recall's pairs in a fast-weight
memory updated by eq. 5, `A_t = W_A * A_{t-1} + W_h * h_t h_t^T + W_AH *
A_{t-1} * h_t h_t^T`; here it learns the task at lengths 9 and 30 and stays
near twice chance at 50 (the WeiNet paper's page, claim 4). On untrained
zoo models (`weinet-rc`, `weinet`: 50 units, the appendix's
initialisation) this measures, by length:

- the memory's scale at the query: the largest `|A_T|`, the share of its
  entries at the cell's safeguard clip (`--memory-clip none` removes it,
  as in the paper), and the share of decay weights `W_A + W_AH h_i h_j`
  above 1 in magnitude;
- `|dL/dW_h^{(t)}|`, the norm of the part of `dL/dW_h` contributed at step
  `t`, k = T - t steps back from the query (median over the batch), and
  the same at the step that showed the queried digit.

`--decay-stddev s` starts `W_A` from N(0.9, s) instead of the appendix's
N(0.9, 0.1) (the cell's `decay_initializer`). `--path` carries the gradient
between steps along one path only: `memory` (through `A_{t-1}` alone: the
controller's and reader's states enter each step as constants),
`controller` (through `h` and `e` alone, eq. 2 and 7), or `both`.

Run (TensorFlow):

    python -m keras_rda.lab.diagnostics.weinet_memory_gradient \
        --json results/weinet_paper/weinet-memory-gradient.json
"""

import argparse
import inspect

import keras
import numpy as np

from keras_rda.cells import WeiNetCell
from keras_rda.lab.reporting.report import write_script_table
from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo.registry import get_model_spec
from keras_rda.ops import associative as aops

STEPS_BACK = (0, 2, 8, 20, 28, 48)
# The cell's own default safeguard bound on |A| (100).
DEFAULT_CLIP = inspect.signature(WeiNetCell).parameters["memory_clip"].default
PATHS = {
    "both": "memory and controller",
    "memory": "memory only",
    "controller": "controller only",
}


def decay_initializer(model, decay_stddev):
    """The cell's `decay_initializer` for `W_A ~ N(0.9, decay_stddev)`, or
    None (the appendix's start) when `decay_stddev` is None.

    For "weinet-rc", `W_A = c r^T` and the initializer draws each factor:
    N(sqrt(0.9), s / sqrt(1.8)) gives the product mean 0.9 and spread s
    (first order; the cell's own factor start for the appendix's 0.1).
    """
    if decay_stddev is None:
        return None
    if model == "weinet-rc":
        mean, stddev = np.sqrt(0.9), decay_stddev / np.sqrt(1.8)
    else:
        mean, stddev = 0.9, decay_stddev
    return keras.initializers.RandomNormal(mean=float(mean), stddev=float(stddev))


def build(model, length, seed, decay_stddev, memory_clip=DEFAULT_CLIP):
    """The zoo model, built for associative recall of `length`; returns
    `(task, cell, readout)`."""
    keras.utils.set_random_seed(seed)
    task = get_task("associative-recall", length=length)
    init = decay_initializer(model, decay_stddev)
    net = get_model_spec(model).build(
        task, units=50, decay_initializer=init, memory_clip=memory_clip
    )
    return task, net.get_layer("rnn").cell, net.get_layer("readout")


def step_gradients(cell, readout, x, y, path="both"):
    """The gradient of the summed loss with respect to `W_h`, split by step.

    Args:
        cell: a built `WeiNetCell` (one memory, no router).
        readout: the layer from the last `e_T` to the logits.
        x: inputs `[batch, T, features]`; y: targets `[batch]`.
        path: the recurrent path the gradient takes between steps, one of
            `PATHS` (module docstring).

    Returns:
        `(grads, memories, decay)`: `dL/dW_h^{(t)}` for each step and
        example `[T, batch, K, H, H]` (summed over steps and examples it is
        `dL/dW_h`), the last memory `[batch, K, H, H]` and the last step's
        effective decay weights `W_A + W_AH * h_i h_j` `[batch, K, H, H]`.
    """
    import tensorflow as tf

    batch, steps = x.shape[0], x.shape[1]
    k, h_units = cell.num_memories, cell.units
    w_a = cell._memory_weight("decay")
    w_ah = cell._memory_weight("cross")
    write = cell._memory_weight("write")
    # One zero perturbation of W_h per example and step: its gradient is the
    # part of dL/dW_h contributed at that step, for that example.
    eps = [tf.Variable(tf.zeros((batch, k, h_units, h_units))) for _ in range(steps)]
    states = tf.stop_gradient if path == "memory" else tf.identity
    memory = tf.stop_gradient if path == "controller" else tf.identity
    with tf.GradientTape() as tape:
        h = tf.zeros((batch, h_units))
        e = tf.zeros((batch, h_units))
        memories = tf.zeros((batch, k, h_units, h_units))
        for t in range(steps):
            e_prev, h_prev = states(e), states(h)
            h = cell._controller(tf.constant(x[:, t]), e_prev, h_prev)
            hh = tf.expand_dims(aops.outer(h), 1)
            decay = w_a + w_ah * hh
            memories = decay * memory(memories) + (write + eps[t]) * hh
            if cell.memory_clip is not None:
                memories = tf.clip_by_value(
                    memories, -cell.memory_clip, cell.memory_clip
                )
            e = cell._reader(e_prev, cell._combine(memories, None), h)
        logits = readout(e)
        loss = tf.reduce_sum(
            keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
        )
    grads = tape.gradient(loss, eps)
    return np.stack([g.numpy() for g in grads]), memories.numpy(), decay.numpy()


def memory_gradients(cell, readout, x, y, path="both"):
    """`step_gradients` summarised for the table.

    Returns:
        `(write_grad, memory, decay_above_one)`: `|dL/dW_h^{(t)}|` per
        example and step `[batch, T]`, the last memory `[batch, K, H, H]`
        and the share of effective decay weights above 1 at the last step.
    """
    grads, memories, decay = step_gradients(cell, readout, x, y, path)
    norms = np.sqrt((grads**2).sum(axis=(2, 3, 4))).T
    return norms, memories, float(np.mean(np.abs(decay) > 1.0))


def digit_steps(x):
    """The step at which each example's queried digit was shown `[batch]`."""
    symbols = np.where(x.sum(-1) > 0, x.argmax(-1), -1)
    key = symbols[:, -1]
    steps = []
    for row, k in zip(symbols, key):
        where = np.flatnonzero(row[:-3] == k)
        steps.append(int(where[0]) + 1)
    return np.array(steps)


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["weinet-rc", "weinet"])
    parser.add_argument("--lengths", type=int, nargs="+", default=[9, 30, 50])
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--decay-stddev",
        type=float,
        default=None,
        help="spread of W_A's initialisation (the appendix: 0.1)",
    )
    parser.add_argument(
        "--memory-clip",
        type=lambda value: None if value.lower() == "none" else float(value),
        default=DEFAULT_CLIP,
        help="the cell's safeguard bound on |A|, or 'none' (the paper has none)",
    )
    parser.add_argument(
        "--path",
        choices=sorted(PATHS),
        default="both",
        help="the recurrent path the gradient takes between steps",
    )
    parser.add_argument("--json", metavar="PATH", help="write the table record")
    parser.add_argument("--append", action="store_true", help="add rows to --json")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    if keras.backend.backend() != "tensorflow":
        raise SystemExit("weinet_memory_gradient differentiates with tf.GradientTape")
    rows = []
    spread = "0.1 (appendix)" if args.decay_stddev is None else f"{args.decay_stddev:g}"
    for model in args.models:
        for length in args.lengths:
            per_seed = []
            for seed in args.seeds:
                task, cell, readout = build(
                    model, length, seed, args.decay_stddev, args.memory_clip
                )
                x, y, _ = task.generate(args.batch_size, np.random.default_rng(seed))
                norms, memory, above = memory_gradients(cell, readout, x, y, args.path)
                steps = x.shape[1]
                back = {
                    kk: float(np.median(norms[:, steps - 1 - kk]))
                    for kk in STEPS_BACK
                    if kk < steps
                }
                at_digit = float(np.median(norms[np.arange(len(y)), digit_steps(x)]))
                per_seed.append(
                    (
                        float(np.abs(memory).max()),
                        float(np.mean(np.abs(memory) >= 0.999 * DEFAULT_CLIP)),
                        above,
                        back,
                        at_digit,
                    )
                )
            med = lambda values: float(np.median(values))  # noqa: E731
            back = {kk: med([s[3][kk] for s in per_seed]) for kk in per_seed[0][3]}
            rows.append(
                [
                    model,
                    spread,
                    "none" if args.memory_clip is None else f"{args.memory_clip:g}",
                    PATHS[args.path],
                    str(length),
                    f"{med([s[0] for s in per_seed]):.3g}",
                    f"{100 * med([s[1] for s in per_seed]):.1f}",
                    f"{100 * med([s[2] for s in per_seed]):.1f}",
                    *[f"{back[kk]:.1e}" if kk in back else "-" for kk in STEPS_BACK],
                    f"{med([s[4] for s in per_seed]):.1e}",
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    columns = [
        "model",
        "W_A spread",
        "memory clip",
        "gradient between steps",
        "length",
        "largest A_T entry",
        "A_T entries at 100 or more (%)",
        "decay above 1 (%)",
        *[f"dL/dW_h, {kk} back" for kk in STEPS_BACK],
        "dL/dW_h at the digit",
    ]
    notes = [
        f"Untrained zoo models (50 units; the appendix's initialisation but for "
        "the W_A spread and memory clip of each row), seeds "
        f"{', '.join(map(str, args.seeds))}, one batch of {args.batch_size} "
        "held-out-style sequences each; medians over examples, then over seeds. "
        "dL/dW_h, k back: the norm of the part of d(summed loss)/dW_h "
        "contributed at step T - k (k = 0 is the query step); at the digit: at "
        "the step that showed the queried digit. decay: the magnitude of "
        "W_A + W_AH h_i h_j at the last step.",
    ]
    write_script_table(
        args.json,
        "weinet_memory_gradient",
        columns,
        rows,
        notes,
        argv,
        append=args.append,
        seeds=list(args.seeds),
    )


if __name__ == "__main__":
    main()
