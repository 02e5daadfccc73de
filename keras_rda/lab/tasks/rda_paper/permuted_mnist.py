"""Permuted MNIST as a task ("pmnist")."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.rda_paper.sequential_mnist import SequentialMnist


@register_preset
class PermutedMnist(SequentialMnist):
    """`SequentialMnist` with one fixed, seeded permutation of the pixels.

    The same permutation for every image, train and test (drawn from
    `permutation_seed` with `numpy.random.default_rng`; at `pool=1` it is
    `pixel_permutation(permutation_seed)` of the `keras_rda.lab.datasets.mnist`
    module).

    The arguments are `SequentialMnist`'s, `permuted` True by default.
    """

    name = "pmnist"
    paper = "RDA paper, section 6.3 (Table 4); RWA paper, section 3.6"
    description = "MNIST with a fixed permutation of the 784 pixels"

    def __init__(self, path=None, pool=1, permutation_seed=0, permuted=True):
        super().__init__(
            path=path, pool=pool, permutation_seed=permutation_seed, permuted=permuted
        )
