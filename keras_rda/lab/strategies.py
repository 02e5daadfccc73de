"""`tf.distribute` strategies by name: the one helper behind every `--strategy`.

Used by `keras-rda train`/`compare` (through `keras_rda.lab.runs`)
and by `keras-rda enwik8` (`keras_rda.lab.enwik8`). TensorFlow is imported
when a strategy is made, not when this module is imported.

On the JAX and PyTorch backends only "default" exists: the model trains on
the backend's default device (its GPU where it has one), and the returned
`OneDevice` has the two members the callers use, `scope()` and
`num_replicas_in_sync`.
"""

import contextlib

from keras_rda.utils import validation

STRATEGIES = ("default", "mirrored", "tpu")


class OneDevice:
    """The backend's default device, where `tf.distribute` does not apply."""

    num_replicas_in_sync = 1

    def scope(self):
        return contextlib.nullcontext()


def make_strategy(name="default", tpu=None):
    """A `tf.distribute.Strategy` (a `OneDevice` on JAX and PyTorch).

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
        ValueError: for any other name, and for "mirrored" or "tpu" on a
            backend other than TensorFlow.
    """
    import keras

    name = validation.one_of(
        "strategy", "default" if name is None else name, STRATEGIES
    )
    if keras.backend.backend() != "tensorflow":
        if name != "default":
            validation.tensorflow_backend(f"strategy={name!r}")
        return OneDevice()
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
