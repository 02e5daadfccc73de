"""The task registry: task names for the command line (`register_task`),
and presets (`register_preset`), both class decorators."""

import inspect

from keras_rda.lab.tasks.core.task import Task

_REGISTRY = {}


def register_task(cls):
    """Class decorator: makes a `Task` subclass available under `cls.name`.

    The class must set `name` in its own body (a registered subclass that
    inherited its parent's name would shadow the parent).
    """
    if not (isinstance(cls, type) and issubclass(cls, Task)):
        raise TypeError(f"register_task takes a Task subclass, got {cls!r}.")
    if not vars(cls).get("name"):
        raise ValueError(f"Task class {cls.__name__} has no `name` of its own.")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"A task named {cls.name!r} is already registered.")
    if "preset_of" not in vars(cls):
        cls.preset_of = None  # a subclass of a preset is not a preset itself
    _REGISTRY[cls.name] = cls
    return cls


def register_preset(cls, *args, **kwargs):
    """Class decorator: registers a preset of its parent task.

    A preset is a subclass that runs its parent's generator with other
    defaults: its `__init__` (if it has one) takes only arguments its
    parent's takes, with the paper's values as defaults, and its class
    attributes (`paper`, `description`, `threshold`, `scales`, ...) are the
    paper's. The decorator checks the arguments, sets `preset_of` to the
    parent's registry name (its class name when the parent is a generator
    that is not registered itself) and registers the class under its `name`
    (e.g. `keras_rda.lab.tasks.RDAAddingProblem`); returns it.
    """
    if args or kwargs or not isinstance(cls, type):
        raise TypeError(
            "register_preset is a class decorator: write the preset as "
            "`@register_preset` over `class Preset(Base): ...`, with its "
            "defaults in its `__init__` and its class attributes in its body "
            "(the `register_preset(base, class_name, name=..., ...)` form "
            "was removed)."
        )
    parent = cls.__mro__[1]
    if not (issubclass(parent, Task) and parent is not Task):
        raise TypeError(
            f"Preset {cls.__name__} must subclass the task it is a preset of, "
            f"got {parent.__name__}."
        )
    own = inspect.signature(cls.__init__).parameters
    theirs = inspect.signature(parent.__init__).parameters
    unknown = [p for p in own if p not in theirs and own[p].kind != own[p].VAR_KEYWORD]
    if unknown:
        raise ValueError(
            f"Preset {cls.name!r}: {parent.__name__} takes no argument {unknown[0]!r}."
        )
    cls.preset_of = vars(parent).get("name") or parent.__name__
    return register_task(cls)


def task_names():
    """Sorted names of all registered tasks."""
    return sorted(_REGISTRY)


def get_task_class(name):
    """The registered `Task` subclass called `name` (ValueError if none)."""
    if name not in _REGISTRY:
        raise ValueError(
            f"Received an invalid value for argument `task`, expected one of "
            f"{', '.join(task_names())}, got {name!r}"
        )
    return _REGISTRY[name]


def get_task(name, **kwargs):
    """Instantiates the registered task `name` with `kwargs`.

    Raises:
        ValueError: if no task of that name exists; the message lists the
            valid names.
    """
    if isinstance(name, Task):
        return name
    return get_task_class(name)(**kwargs)
