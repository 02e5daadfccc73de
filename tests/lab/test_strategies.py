"""`make_strategy` and its helpers: one name per kind of strategy, on every
backend; every other pair is a one-line error naming the backend and the
strategies it runs."""

import json

import keras
import numpy as np
import pytest

from keras_rda.lab import strategies
from keras_rda.lab.cli import main
from keras_rda.lab.strategies import make_strategy

BACKEND = keras.backend.backend()

# What the issue asks each backend to run (written out here, not read from
# the module, so that a change to the module's table fails this test).
RUNS = {
    "tensorflow": {"default", "mirrored", "multi-worker", "tpu"},
    "jax": {"default", "data-parallel"},
    "torch": {"default"},
}
NAMES = ("default", "data-parallel", "mirrored", "multi-worker", "tpu")


def test_default_is_one_replica_with_a_scope():
    for name in ("default", None):
        strategy = make_strategy(name)
        assert strategy.num_replicas_in_sync == 1
        with strategy.scope():
            layer = keras.layers.Dense(2)
            layer.build((None, 3))
        assert layer.kernel.shape == (3, 2)


def test_unknown_name_is_a_clear_error():
    with pytest.raises(ValueError, match="strategy.*'gpus'"):
        make_strategy("gpus")


def test_the_cli_offers_every_name():
    assert set(strategies.STRATEGIES) == set(NAMES)


@pytest.mark.parametrize("backend", sorted(RUNS))
@pytest.mark.parametrize("name", NAMES)
def test_every_name_on_every_backend_runs_or_is_one_line(name, backend):
    if name in RUNS[backend]:
        assert strategies.check_strategy(name, backend) == name
        return
    with pytest.raises(ValueError) as error:
        strategies.check_strategy(name, backend)
    message = str(error.value)
    assert "\n" not in message
    assert f"{name!r}" in message and f"the {backend} backend" in message
    listed = message.split("supports: ")[1].split(", ")
    assert set(listed) == RUNS[backend]


@pytest.mark.parametrize("name", NAMES)
def test_cli_strategy_on_this_backend_runs_or_exits_2_with_one_line(
    name, capsys, tmp_path, monkeypatch
):
    """Each name on Keras's backend: made, or `keras-rda train` stops with
    one line and status 2, before anything is written."""
    monkeypatch.delenv("TF_CONFIG", raising=False)
    if name in RUNS[BACKEND] and name not in ("tpu", "multi-worker"):
        strategy = make_strategy(name)
        assert strategy.num_replicas_in_sync >= 1
        assert strategies.strategy_name(strategy) == name
        return
    # Unsupported here, or tpu / multi-worker without a TPU / TF_CONFIG.
    code = main(["train", "copy", "--strategy", name, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("keras-rda: error: "), err
    assert f"--strategy {name}: " in err
    if name not in RUNS[BACKEND]:
        assert f"the {BACKEND} backend" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.tensorflow_only
@pytest.mark.parametrize("config", ["", "{not json", json.dumps({"cluster": {}})])
def test_multi_worker_needs_a_tf_config(config, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", config)
    with pytest.raises(ValueError, match="needs the TF_CONFIG environment"):
        make_strategy("multi-worker")


class _Resolver:
    def __init__(self, task_type, task_id, cluster):
        self.task_type, self.task_id, self._cluster = task_type, task_id, cluster

    def cluster_spec(self):
        return type("Spec", (), {"as_dict": lambda s: self._cluster})()


class MultiWorkerMirroredStrategy:  # named as TensorFlow's, for strategy_name
    def __init__(self, *args):
        self.cluster_resolver = _Resolver(*args)


_Strategy = MultiWorkerMirroredStrategy


def test_chief_is_the_chief_task_else_worker_0():
    workers = {"worker": ["a:1", "b:2"]}
    with_chief = {"chief": ["c:0"], **workers}
    assert strategies.is_chief(_Strategy("worker", 0, workers))
    assert not strategies.is_chief(_Strategy("worker", 1, workers))
    assert strategies.is_chief(_Strategy("chief", 0, with_chief))
    assert not strategies.is_chief(_Strategy("worker", 0, with_chief))
    assert strategies.is_chief(make_strategy("default"))


def test_global_batch_must_split_over_the_replicas():
    two = type("Two", (), {"num_replicas_in_sync": 2})()
    assert strategies.check_global_batch(two, 8) == 8
    with pytest.raises(ValueError, match="--batch-size=9 .* 2 replicas"):
        strategies.check_global_batch(two, 9, "--batch-size")


def test_without_data_parallel_batches_stay_as_they_are():
    assert strategies.active_data_parallel() is None
    batch = (np.arange(6).reshape(3, 2), {"w": np.ones(3)})
    assert strategies.shard_batch(batch) is batch
    assert strategies.local_rows(batch) is batch


@pytest.mark.skipif(BACKEND != "jax", reason="keras.distribution runs on JAX")
def test_data_parallel_scope_activates_keras_distribution():
    strategy = make_strategy("data-parallel")
    assert strategy.num_replicas_in_sync == len(keras.distribution.list_devices())
    with strategy.scope():
        active = strategies.active_data_parallel()
        assert isinstance(active, keras.distribution.DataParallel)
        x = np.arange(12.0).reshape(strategy.num_replicas_in_sync * 2, -1)
        placed = strategies.shard_batch({"x": x})["x"]
        np.testing.assert_array_equal(np.asarray(placed), x)
        assert len(placed.sharding.device_set) == strategy.num_replicas_in_sync
    assert strategies.active_data_parallel() is None
