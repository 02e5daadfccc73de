"""The UW paper's write schedules, and the one registry of their names.

- `RegularWriting`: every step (the DNC's own behaviour).
- `UniformWriting`: every `floor(T / (D + 1))` steps (UW paper, eq. 8).
- `CachedUniformWriting`: a cache of `L` controller states, local attention,
  a write every `L` steps (UW paper, Algorithm 1, eq. 9-10).
- `RandomWriting`: irregular writes at random steps (the paper's RW baseline).

Each schedule imports only its base class (`write_schedule.py`); this module
imports the four and is the one place that maps a name (`"regular"`,
`"uniform"`, `"cached_uniform"`, `"random"`) to a class, so the cells, the
layers and the lab resolve a name the same way.
"""

import inspect

import keras

from keras_rda.memory.schedules.cached_uniform_writing import CachedUniformWriting
from keras_rda.memory.schedules.random_writing import RandomWriting
from keras_rda.memory.schedules.regular_writing import RegularWriting
from keras_rda.memory.schedules.uniform_writing import UniformWriting
from keras_rda.memory.schedules.write_schedule import WriteSchedule

#: String alias -> schedule class (the aliases of DESIGN.md).
SCHEDULES = {
    "regular": RegularWriting,
    "uniform": UniformWriting,
    "cached_uniform": CachedUniformWriting,
    "random": RandomWriting,
}


def _schedule_class(name):
    """The class of alias or class name `name`, or None."""
    key = name.lower()
    if key in SCHEDULES:
        return SCHEDULES[key]
    for cls in SCHEDULES.values():
        if cls.__name__ == name:
            return cls
    return None


def _invalid(identifier):
    return ValueError(
        "Received an invalid value for argument `write_schedule`, expected a "
        f"WriteSchedule or one of {sorted(SCHEDULES)}, got {identifier!r}"
    )


def get_write_schedule(identifier, drop_unused=False, **kwargs):
    """A `WriteSchedule` from an object, a string alias or a config dict.

    Args:
        identifier: a `WriteSchedule`; `None` or `"regular"` (regular writing);
            a string alias `"uniform"`, `"cached_uniform"` or `"random"` (or
            the class name), built with `**kwargs` (these schedules need
            arguments: the alias alone raises a `ValueError` saying which);
            or a dict from `keras.saving.serialize_keras_object`.
        drop_unused: if True, keyword arguments the schedule's constructor
            does not take are ignored, so one call can describe any schedule
            (`get_write_schedule(name, drop_unused=True, sequence_length=50,
            encoding_steps=50, cache_size=5, seed=0)`); else they raise.
        **kwargs: constructor arguments for a string alias, e.g.
            `get_write_schedule("uniform", sequence_length=50)`.

    Returns:
        A `WriteSchedule`.
    """
    if identifier is None:
        identifier = "regular"
    if isinstance(identifier, WriteSchedule):
        return identifier
    if isinstance(identifier, dict):
        schedule = keras.saving.deserialize_keras_object(identifier)
        if not isinstance(schedule, WriteSchedule):
            raise _invalid(identifier)
        return schedule
    if not isinstance(identifier, str):
        raise _invalid(identifier)
    cls = _schedule_class(identifier)
    if cls is None:
        raise _invalid(identifier)
    if drop_unused:
        accepted = inspect.signature(cls.__init__).parameters
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    try:
        return cls(**kwargs)
    except TypeError as error:
        raise ValueError(
            "Received an invalid value for argument `write_schedule`: "
            f"{identifier!r} needs other arguments ({error}); pass a "
            f"{cls.__name__}(...) object instead"
        ) from None


__all__ = [
    "CachedUniformWriting",
    "RandomWriting",
    "RegularWriting",
    "SCHEDULES",
    "UniformWriting",
    "WriteSchedule",
    "get_write_schedule",
]
