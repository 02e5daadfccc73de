"""Every Keras-internal (`keras.src`) name the lab uses, in one place.

The library's are in `keras_rda.utils.keras_compat`; these two serve only
the lab's training strategies. Each is imported when first asked for, since
each belongs to one backend:

- `tensorflow_trainer()`: `keras.src.backend.tensorflow.trainer`, whose
  multi-worker log reduction `keras_rda.lab.runs.run_loop` replaces under
  `MultiWorkerMirroredStrategy` (keras-team/keras#20585).
- `jax_distribution_lib()`: `keras.src.backend.jax.distribution_lib`,
  whose `distribute_data_input` places a global batch on the devices of a
  `keras.distribution.DataParallel` (`keras_rda.lab.strategies.shard_batch`).
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
