"""`tf.distribute` strategies by name: the one helper behind every `--strategy`.

Used by `keras-rda train`/`compare` (through `keras_rda.experiments.runner`)
and by `keras-rda enwik8` (`keras_rda.training`). TensorFlow is imported
when a strategy is made, not when this module is imported.
"""

from keras_rda.utils import validation

STRATEGIES = ("default", "mirrored", "tpu")


def make_strategy(name="default", tpu=None):
    """A `tf.distribute.Strategy`.

    The same name gives the same kind of strategy with or without a GPU:
    "mirrored" mirrors over all local GPUs when there are any, and over all
    logical CPU devices otherwise (one replica per device in both cases).

    Args:
        name: "default" (one CPU or GPU; None means the same), "mirrored"
            (all local GPUs, else all logical CPUs) or "tpu".
        tpu: TPU address for `TPUClusterResolver` ("" or None: the local or
            Colab TPU); only used with "tpu".

    Returns:
        The strategy; for "tpu" the TPU system is connected and initialised.

    Raises:
        ValueError: for any other name.
    """
    name = validation.one_of(
        "strategy", "default" if name is None else name, STRATEGIES
    )
    import tensorflow as tf

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
