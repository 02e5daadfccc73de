"""Sequential MNIST as a task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation


@register_task
class SequentialMnist(Task):
    """Classify an MNIST digit read one pixel per step (784 steps).

    Backed by `keras_rda.lab.datasets.mnist`: a local CSV (`path`, or
    `KERAS_RDA_DATA_DIR`) or tensorflow-datasets. Training batches sample
    the training split with the stream's seed; `held_out` is the test split.
    Guessing scores 10%.

    Args:
        path: local MNIST CSV file or directory (see `keras_rda.lab.datasets.mnist`).
        pool: average-pool the 28x28 image by `pool` x `pool` first (1 = the
            paper's 784 steps; `--scale small` uses 2: 196 steps).
        permuted: whether to read the pixels in one fixed, seeded order
            (the permuted variant: the preset `PermutedMnist`, "pmnist").
        permutation_seed: seed of the fixed permutation.

    Reference:
        Maginnis & Richemond 2017 (RDA paper), section 6.3, Tables 3-4;
        Ostmeyer & Cowell 2017 (RWA paper), section 3.6; Le et al. 2015.
    """

    name = "mnist"
    paper = "RDA paper, section 6.3 (Table 3); RWA paper, section 3.6"
    description = "MNIST digit read pixel by pixel (784 steps of [0,1] pixels)"
    output = "classification"
    num_classes = 10
    metric = "accuracy"
    baseline = 0.1
    threshold = ("accuracy", ">", 0.1)
    paper_steps = None
    scales = {"small": {"pool": 2}}
    training_scales = {
        "small": {"steps": 200, "eval_examples": 500},
        "paper": {"steps": 250000, "eval_examples": 10000},
    }
    input_dim = 1

    def __init__(self, path=None, pool=1, permutation_seed=0, permuted=False):
        self.path = None if path is None else str(path)
        self.pool = int(validation.one_of("pool", pool, (1, 2, 4, 7, 14, 28)))
        self.permuted = validation.boolean("permuted", permuted)
        self.permutation_seed = int(permutation_seed)
        self._data = None

    @property
    def length(self):
        return (28 // self.pool) ** 2

    def data(self):
        """`((x_train, y_train), (x_test, y_test))`, loaded once."""
        if self._data is None:
            from keras_rda.lab.datasets.mnist import mnist

            (x_train, y_train), (x_test, y_test) = mnist(permuted=False, path=self.path)
            x_train, x_test = self._sequence(x_train), self._sequence(x_test)
            self._data = (x_train, y_train), (x_test, y_test)
        return self._data

    def data_source(self):
        """The MNIST file read and its digest, or the full download (see
        `keras_rda.lab.datasets.mnist.mnist_source`)."""
        from keras_rda.lab.datasets.mnist import mnist_source

        return mnist_source(self.path)

    def _sequence(self, x):
        """Pools, then permutes (the permutation acts on the pooled pixels)."""
        if self.pool > 1:
            side, p = 28 // self.pool, self.pool
            x = x.reshape(len(x), side, p, side, p).mean(axis=(2, 4))
            x = x.reshape(len(x), side * side, 1).astype(np.float32)
        if self.permuted:
            order = np.random.default_rng(self.permutation_seed).permutation(
                self.length
            )
            x = x[:, order]
        return x

    def generate(self, batch_size, rng):
        (x, y), _ = self.data()
        index = rng.integers(0, len(y), size=batch_size)
        return x[index], y[index], np.ones(batch_size, np.float32)

    def held_out(self, num_examples, seed=12345):
        """The first `num_examples` digits of the test split."""
        del seed
        _, (x, y) = self.data()
        n = min(num_examples, len(y))
        return x[:n], y[:n], np.ones(n, np.float32)
