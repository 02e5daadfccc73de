"""Strategies by name: the one helper behind every `--strategy`.

Used by `keras-rda train`/`compare` (through `keras_rda.lab.runs`)
and by `keras-rda enwik8` (`keras_rda.lab.enwik8`). Each backend runs on
the engine it already has; nothing here distributes by itself:

| backend    | strategies                                                   |
|------------|--------------------------------------------------------------|
| TensorFlow | default, mirrored, multi-worker, tpu (`tf.distribute`)       |
| JAX        | default, data-parallel (`keras.distribution.DataParallel`)   |
| PyTorch    | default                                                      |

Any other pair is a one-line `ValueError` naming the backend and the
strategies it supports (`BACKEND_STRATEGIES`). Every strategy has the two
members the callers use, `scope()` (build the model, and train it, inside
it) and `num_replicas_in_sync`; the other helpers serve custom loops (the
enwik8 loop).
"""

import contextlib
import os

from keras_rda.lab import keras_compat
from keras_rda.utils import validation

STRATEGIES = ("default", "data-parallel", "mirrored", "multi-worker", "tpu")
# Strategies that split every global batch into equal parts, one per replica.
EVEN_SPLITS = ("data-parallel", "multi-worker")

BACKEND_STRATEGIES = {
    "tensorflow": ("default", "mirrored", "multi-worker", "tpu"),
    "jax": ("default", "data-parallel"),
    "torch": ("default",),
    "numpy": ("default",),
}

# Environment variables of `keras.distribution.initialize` (several hosts).
_JAX_PROCESSES = "KERAS_DISTRIBUTION_NUM_PROCESSES"


class OneDevice:
    """The backend's default device, where no distribution applies."""

    num_replicas_in_sync = 1

    def scope(self):
        return contextlib.nullcontext()


def supported_strategies(backend=None):
    """The `--strategy` values of `backend` (default: Keras's backend)."""
    import keras

    backend = backend or keras.backend.backend()
    return BACKEND_STRATEGIES.get(backend, ("default",))


def check_strategy(name, backend=None):
    """`name` (None: "default") if `backend` (default: Keras's) runs it.

    Raises:
        ValueError: an unknown name, or one the backend does not run; the
            message names the backend and the strategies it supports.
    """
    import keras

    name = validation.one_of(
        "strategy", "default" if name is None else name, STRATEGIES
    )
    backend = backend or keras.backend.backend()
    supported = supported_strategies(backend)
    if name not in supported:
        raise ValueError(
            f"strategy={name!r} is not available on the {backend} backend, "
            f"which supports: {', '.join(supported)}"
        )
    return name


def make_strategy(name="default", tpu=None):
    """The strategy called `name`, on Keras's backend.

    Args:
        name: "default" (one CPU or GPU; None means the same);
            TensorFlow: "mirrored" (all local GPUs, else all logical CPUs),
            "multi-worker" (`tf.distribute.MultiWorkerMirroredStrategy`,
            the cluster from the `TF_CONFIG` environment variable) or
            "tpu"; JAX: "data-parallel" (`keras.distribution.DataParallel`
            over `keras.distribution.list_devices()`; on several hosts,
            `keras.distribution.initialize()` is called first when
            `KERAS_DISTRIBUTION_NUM_PROCESSES` is set).
        tpu: TPU address for `TPUClusterResolver` ("" or None: the local or
            Colab TPU); only used with "tpu".

    Returns:
        An object with `scope()` and `num_replicas_in_sync`: a
        `tf.distribute.Strategy` on TensorFlow, a
        `keras_rda.lab.keras_distribution.KerasDistribution` for
        "data-parallel", else a `OneDevice`. For "tpu" the TPU system is
        connected and initialised.

    Raises:
        ValueError: an unknown name, or one the backend does not run (see
            `check_strategy`); "multi-worker" without a valid `TF_CONFIG`.
    """
    import keras

    name = check_strategy(name)
    backend = keras.backend.backend()
    if backend != "tensorflow":
        if name == "data-parallel":
            return _data_parallel()
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
    if name == "multi-worker":
        _check_tf_config()
        return tf.distribute.MultiWorkerMirroredStrategy()
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu or "")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)


def _data_parallel():
    """`keras.distribution.DataParallel` over every device, wrapped."""
    import keras

    from keras_rda.lab.keras_distribution import KerasDistribution

    if int(os.environ.get(_JAX_PROCESSES, "1") or 1) > 1:
        import jax

        if not jax.distributed.is_initialized():
            keras.distribution.initialize()
    devices = keras.distribution.list_devices()
    return KerasDistribution(keras.distribution.DataParallel(devices=devices))


def _check_tf_config():
    """A one-line error unless `TF_CONFIG` names a cluster and this task."""
    import json

    text = os.environ.get("TF_CONFIG", "")
    try:
        config = json.loads(text) if text else None
    except json.JSONDecodeError:
        config = None
    if not (
        isinstance(config, dict)
        and isinstance(config.get("cluster"), dict)
        and isinstance(config.get("task"), dict)
    ):
        raise ValueError(
            "strategy='multi-worker' needs the TF_CONFIG environment variable: "
            'JSON {"cluster": {"worker": ["host:port", ...]}, "task": '
            f'{{"type": "worker", "index": N}}}}; got TF_CONFIG={text!r}'
        )


def strategy_name(strategy):
    """The name a strategy is recorded under (one of `STRATEGIES`)."""
    if strategy is None or isinstance(strategy, str):
        return strategy or "default"
    kind = type(strategy).__name__
    if kind == "KerasDistribution":
        return "data-parallel"
    if "TPU" in kind:
        return "tpu"
    if "MultiWorker" in kind or "CollectiveAllReduce" in kind:
        return "multi-worker"
    return "mirrored" if "Mirrored" in kind else "default"


def is_chief(strategy=None):
    """Whether this process writes records and checkpoints: True except on
    the workers of a `MultiWorkerMirroredStrategy` other than the chief (the
    "chief" task of `TF_CONFIG`, else worker 0), and on JAX processes other
    than 0 (with `strategy` None, the JAX process index alone decides). The
    others still save (some savers are collective), into a temporary folder.
    """
    resolver = getattr(strategy, "cluster_resolver", None)
    if strategy_name(strategy) != "multi-worker":
        resolver = None  # one process (a TPU's resolver is not asked)
    if resolver is not None and getattr(resolver, "task_type", None) is not None:
        task_type, task_id = resolver.task_type, resolver.task_id
        if task_type == "chief":
            return True
        cluster = resolver.cluster_spec().as_dict()
        return task_type == "worker" and task_id == 0 and "chief" not in cluster
    import keras

    if keras.backend.backend() == "jax":
        import jax

        return jax.process_index() == 0
    return True


def active_data_parallel():
    """Keras's active `keras.distribution.DataParallel` (inside
    `make_strategy("data-parallel").scope()`), or None."""
    import keras

    if keras.backend.backend() != "jax":
        return None
    distribution = keras.distribution.distribution()
    if isinstance(distribution, keras.distribution.DataParallel):
        return distribution
    return None


def check_global_batch(strategy, batch_size, flag="batch_size"):
    """`batch_size` if it splits evenly over `strategy`'s replicas.

    Raises:
        ValueError: naming `flag`, the batch and the replica count.
    """
    replicas = getattr(strategy, "num_replicas_in_sync", 1)
    if batch_size % replicas:
        raise ValueError(
            f"{flag}={batch_size} does not split over {replicas} replicas; "
            f"use a multiple of {replicas}"
        )
    return batch_size


def check_even_split(strategy, batch_size, eval_examples):
    """`check_global_batch` of both batch sizes, for the `EVEN_SPLITS`."""
    if strategy_name(strategy) in EVEN_SPLITS:
        check_global_batch(strategy, batch_size, "batch_size")
        check_global_batch(strategy, int(eval_examples), "eval_examples")


def error_line(error):
    """`error` in one line: its type and the first line of its message (a
    TPU resolver's errors run to many)."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {first}"


def local_rows(batch):
    """This host's rows of a global batch `(B, ...)` (or a nested structure of
    them): rows `[p * B / P, (p + 1) * B / P)` of JAX process `p` of `P`, from
    which Keras assembles the global array (the batch itself on one host)."""
    import keras

    if keras.backend.backend() != "jax":
        return batch
    import jax

    count = jax.process_count()
    if count == 1:
        return batch
    index = jax.process_index()

    def rows(x):
        if x is None:
            return None
        size = x.shape[0]
        if size % count:
            raise ValueError(
                f"a global batch of {size} rows does not split over {count} hosts"
            )
        part = size // count
        return x[index * part : (index + 1) * part]

    return jax.tree_util.tree_map(rows, batch)


def shard_batch(batch, distribution=None):
    """A global batch `(B, ...)` (or a nested structure of them; on several
    hosts, this host's `local_rows`) as `jax.Array`s sharded by rows over the
    devices of `distribution` (default: `active_data_parallel()`; with none,
    the batch as it is): a jit-compiled step on it runs on every device at
    once, and a mean over the batch is the mean over all `B` rows.

    Raises:
        ValueError: `B` does not split over the devices.
    """
    distribution = distribution or active_data_parallel()
    if distribution is None:
        return batch
    import jax

    jax_distribution = keras_compat.jax_distribution_lib()

    devices = int(distribution.device_mesh.devices.size)
    local = max(1, devices // jax.process_count())

    def place(x):
        if x is None:
            return None
        if x.shape[0] % local:
            raise ValueError(
                f"a batch of {x.shape[0]} rows does not split over {local} "
                "devices; use a multiple of the device count"
            )
        layout = distribution.get_data_layout(x.shape)
        return jax_distribution.distribute_data_input(
            x, layout.backend_layout, distribution.batch_dim_name
        )

    return jax.tree_util.tree_map(place, batch)
