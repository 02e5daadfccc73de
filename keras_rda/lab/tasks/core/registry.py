"""The task registry: task names for the command line, and presets.

`register_task` makes a `Task` subclass available under its `name`;
`register_preset` registers a variant of a task, the same generator with
other constructor defaults and class attributes (a paper's own run of a task
another paper defined, or a fixed-length task's variable-length version),
without a subclass in a file of its own.
"""

import inspect

from keras_rda.lab.tasks.core.task import Task

_REGISTRY = {}


def register_task(cls):
    """Class decorator: makes a `Task` subclass available under `cls.name`."""
    if not cls.name:
        raise ValueError(f"Task class {cls.__name__} has no `name`.")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"A task named {cls.name!r} is already registered.")
    _REGISTRY[cls.name] = cls
    return cls


def register_preset(base, class_name, *, name, doc, defaults=None, **attributes):
    """Registers `base` under another name, with other defaults.

    The preset is a `Task` class (so that `keras_rda.lab.tasks.<class_name>`,
    `isinstance` checks and `Task.shortened` keep working) whose constructor
    is `base`'s with the `defaults` replacing its default arguments, and whose
    class attributes are `base`'s updated with `attributes` (`paper`,
    `description`, `threshold`, `scales`, ...).

    Args:
        base: the `Task` subclass whose generator the preset uses (itself
            registered, or a generator that is only reachable by presets).
        class_name: the preset's public class name, e.g. `"AddingProblem"`.
        name: its registry name (the command line's), e.g. `"adding-problem"`.
        doc: its docstring.
        defaults: `{argument: default}` for `base`'s constructor.
        **attributes: class attributes that differ from `base`'s.

    Returns:
        The registered preset class.

    Example:

    ```python
    AddingProblem = register_preset(
        Addition, "AddingProblem", name="adding-problem", doc="...",
        defaults={"length": 100}, paper="RWA paper, section 3.5",
    )
    ```
    """
    defaults = dict(defaults or {})
    signature = inspect.signature(base.__init__)
    unknown = sorted(set(defaults) - set(signature.parameters) - {"self"})
    if unknown:
        raise ValueError(
            f"Preset {name!r}: {base.__name__} takes no argument {unknown[0]!r}."
        )
    signature = signature.replace(
        parameters=[
            p.replace(default=defaults[p.name]) if p.name in defaults else p
            for p in signature.parameters.values()
        ]
    )

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        base.__init__(*bound.args, **bound.kwargs)

    __init__.__signature__ = signature
    module = inspect.currentframe().f_back.f_globals.get("__name__", __name__)
    namespace = {
        "__init__": __init__,
        "__doc__": doc,
        "__module__": module,
        "__qualname__": class_name,
        "name": name,
        "preset_of": base.name or base.__name__,
        **attributes,
    }
    return register_task(type(class_name, (base,), namespace))


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
