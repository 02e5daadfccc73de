"""`tf.distribute` strategies by name for the enwik8 loop."""

import tensorflow as tf

from keras_rda.utils import validation

STRATEGIES = ("default", "mirrored", "tpu")


def make_strategy(name="default", tpu=None):
    """A `tf.distribute.Strategy`.

    Args:
        name: "default" (one CPU or GPU), "mirrored" (all local GPUs, or all
            logical CPU devices when there is no GPU) or "tpu".
        tpu: TPU address for `TPUClusterResolver` ("" or None: the local or
            Colab TPU).

    Returns:
        The strategy; for "tpu" the TPU system is connected and initialised.
    """
    validation.one_of("strategy", name, STRATEGIES)
    if name == "default":
        return tf.distribute.get_strategy()
    if name == "mirrored":
        gpus = tf.config.list_logical_devices("GPU")
        devices = [d.name for d in gpus] or [
            d.name for d in tf.config.list_logical_devices("CPU")
        ]
        return tf.distribute.MirroredStrategy(devices)
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu or "")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)
