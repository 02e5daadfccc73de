"""`KerasDistribution`: a `keras.distribution` behind the strategy interface."""


class KerasDistribution:
    """A `keras.distribution.Distribution` with the two members the lab uses.

    The lab's training code takes a strategy and uses `scope()` (variables
    built, and `model.fit` run, inside it) and `num_replicas_in_sync`; a
    `tf.distribute.Strategy` has both. On JAX, `--strategy data-parallel`
    gives this wrapper around `keras.distribution.DataParallel`, whose
    `scope()` makes it Keras's active distribution: variables are replicated
    on every device of the mesh and each batch of shape `(B, ...)` is split
    into `B / num_replicas_in_sync` rows per device.

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
