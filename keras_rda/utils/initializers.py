"""Initializers that draw each weight's values on their own.

A Keras 3 random initializer fixes its seed when it is constructed (an
unseeded one draws the seed then), and every call with that seed returns
the same values: called twice with one shape it returns one matrix twice,
and with two shapes two arrays whose first elements agree up to scale. So
one `kernel_initializer` argument used for several weights (the gate
blocks of one kernel, the interface and output projections of a memory
cell) would start those weights equal or correlated. `independent` gives
each draw its own copy.
"""

import zlib

import keras


def independent(initializer, key):
    """A copy of `initializer` that draws values of its own.

    Args:
        initializer: anything `keras.initializers.get` takes.
        key: str, names the draw (a weight, a gate block): with a seeded
            initializer the copy's seed is derived from the seed and `key`,
            so a seeded model still builds the same weights every time.

    Returns:
        A copy with a fresh seed when `initializer` is random and unseeded
        (from Python's `random`, so `keras.utils.set_random_seed` keeps the
        draws repeatable), a copy with the derived seed when it is seeded,
        and `initializer` itself when it draws nothing at random (zeros,
        constants, the identity) or is a plain function.

    Example:

    ```python
    init = keras.initializers.GlorotUniform()
    first = independent(init, "gate_0")((4, 4))
    second = independent(init, "gate_1")((4, 4))  # not equal to `first`
    ```
    """
    initializer = keras.initializers.get(initializer)
    get_config = getattr(initializer, "get_config", None)
    config = get_config() if get_config is not None else None
    if not isinstance(config, dict) or "seed" not in config:
        return initializer
    seed = config["seed"]
    if isinstance(seed, int):
        config = {**config, "seed": zlib.crc32(f"{seed}/{key}".encode()) % 2**31}
    elif seed is not None:  # a serialized `SeedGenerator`: draws anew per call
        return initializer
    return type(initializer).from_config(config)
