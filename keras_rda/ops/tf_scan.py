"""TensorFlow loop of `keras_rda.ops.scan`: `tf.while_loop` + `TensorArray`.

Reads `xs[t]` by index and writes each step's outputs to a `TensorArray`,
stacked after the loop, so a step costs O(1) memory traffic (and XLA
compiles it as one while loop). Not meant to be differentiated through.
"""

import tensorflow as tf


def scan(step, init, xs, reverse=False):
    """See `keras_rda.ops.scan.scan`."""
    structure = xs
    xs = [tf.convert_to_tensor(x) for x in tf.nest.flatten(xs)]
    length = tf.shape(xs[0])[0]
    static_length = xs[0].shape[0]

    def slices(t):
        return tf.nest.pack_sequence_as(structure, [x[t] for x in xs])

    init = tf.nest.map_structure(tf.convert_to_tensor, init)

    # One trace of the step (outside the loop, on the first slice) to learn
    # the outputs' structure, shapes and dtypes; the traced ops are unused.
    _, ys_spec = step(init, slices(0))
    flat_spec = tf.nest.flatten(ys_spec)
    arrays = [
        tf.TensorArray(y.dtype, size=length, element_shape=y.shape) for y in flat_spec
    ]

    def body(i, carry, arrays):
        t = length - 1 - i if reverse else i
        carry, ys = step(carry, slices(t))
        arrays = [a.write(t, y) for a, y in zip(arrays, tf.nest.flatten(ys))]
        return i + 1, carry, arrays

    _, carry, arrays = tf.while_loop(
        lambda i, *_: i < length,
        body,
        (tf.constant(0), init, arrays),
        maximum_iterations=length,
    )
    ys = []
    for a in arrays:
        stacked = a.stack()
        stacked.set_shape([static_length] + stacked.shape[1:].as_list())
        ys.append(stacked)
    return carry, tf.nest.pack_sequence_as(ys_spec, ys)
