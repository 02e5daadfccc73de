"""TensorBoard scalars written with TensorFlow alone (TensorFlow-specific).

`tf.summary.scalar` lives in the `tensorboard` package; `write_scalars`
writes the same events (float32 scalars tagged for TensorBoard's "scalars"
plugin) through TensorFlow's core `tf.summary.write`, so the package is
needed to view the logs, not to write them. Used by the `keras-rda`
runs (`keras_rda.lab.runs.recording`) and the enwik8 loop.
"""


def write_scalars(writer, scalars, step):
    """Writes `{tag: value}` as TensorBoard scalars at `step`, then flushes.

    Args:
        writer: a `tf.summary.SummaryWriter`.
        scalars: `{tag: number}`.
        step: the training step (int).
    """
    import tensorflow as tf
    from tensorflow.core.framework import summary_pb2

    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
    ).SerializeToString()
    with writer.as_default():
        for tag, value in scalars.items():
            tf.summary.write(
                tag, tf.constant(value, tf.float32), step=step, metadata=metadata
            )
    writer.flush()
