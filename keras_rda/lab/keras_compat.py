"""Every Keras-internal (`keras.src`) name the lab uses, in one place (the
library's are in `keras_rda.utils.keras_compat`), each imported when first
asked for, since each belongs to one backend: the TensorFlow trainer whose
multi-worker log reduction `run_loop` replaces (keras-team/keras#20585), and
JAX's `distribution_lib`, whose `distribute_data_input` places a global
batch on the devices of a `DataParallel` (`strategies.shard_batch`).
"""

__all__ = ["jax_distribution_lib", "tensorflow_trainer"]


def tensorflow_trainer():
    """The module `keras.src.backend.tensorflow.trainer`."""
    from keras.src.backend.tensorflow import trainer

    return trainer


def jax_distribution_lib():
    """The module `keras.src.backend.jax.distribution_lib`."""
    from keras.src.backend.jax import distribution_lib

    return distribution_lib
