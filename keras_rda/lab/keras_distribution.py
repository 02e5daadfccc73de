"""`KerasDistribution`: a `keras.distribution` behind the strategy interface."""


class KerasDistribution:
    """A `keras.distribution.Distribution` (on JAX, `--strategy data-parallel`'s
    `DataParallel`) with the two members the lab's training code uses of a
    strategy: `scope()`, which makes it Keras's active distribution (variables
    replicated on every device, each batch `(B, ...)` split into `B /
    num_replicas_in_sync` rows per device), and `num_replicas_in_sync`.

    Args:
        distribution: the `keras.distribution.Distribution` (a
            `DataParallel`).
    """

    def __init__(self, distribution):
        self.distribution = distribution
        self.num_replicas_in_sync = int(distribution.device_mesh.devices.size)

    def scope(self):
        """A context in which `distribution` is Keras's active one."""
        return self.distribution.scope()

    def __repr__(self):
        return (
            f"KerasDistribution({type(self.distribution).__name__}, "
            f"{self.num_replicas_in_sync} device(s))"
        )
