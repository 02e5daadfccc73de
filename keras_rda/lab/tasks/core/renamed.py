"""Task class names that changed in 0.2, kept as deprecated aliases.

Release 0.2 gives every idea one class name across the papers (see the
`keras_rda.lab.tasks` docstring): `Addition` is now `RDAAddingProblem`, the
RDA paper's preset of `AddingProblem`, and so on. An old name still works
for one release, from `keras_rda.lab.tasks` and from the paper package or
module that held it; it warns with a `DeprecationWarning` naming the new
class and gives the new class itself (so `isinstance` and the registry stay
one). The registry names (`keras-rda tasks`) did not change.
"""

import importlib
import warnings

#: Old class name -> its new name.
RENAMED = {
    "Addition": "RDAAddingProblem",
    "ClassifyByLength": "RWAClassifyLength",
    "VariableCopy": "RWACopy",
    "FFAAddition": "FFAAddingProblem",
    "FFAAdditionVariable": "FFAVariableAddingProblem",
    "FFAMultiplication": "FFAMultiplicationProblem",
    "FFAMultiplicationVariable": "FFAVariableMultiplicationProblem",
    "UWDoubleTask": "UWDouble",
    "UWCopyTask": "UWCopy",
    "UWReverseTask": "UWReverse",
    "UWAddTask": "UWAdd",
    "UWMaxTask": "UWMax",
    "SinusoidTask": "Sinusoid",
    "NoisySinusoidTask": "NoisySinusoid",
}


def deprecated_names(module_name, names):
    """A module `__getattr__` that serves the old class `names` with a warning.

    Args:
        module_name: the module's `__name__`.
        names: the old names this module held: a renamed class (a key of
            `RENAMED`) or a class that moved to a file of its own.

    Returns:
        The `__getattr__(name)` function to assign in the module.
    """
    names = frozenset(names)

    def __getattr__(name):
        if name not in names:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        new = RENAMED.get(name, name)
        cls = getattr(importlib.import_module("keras_rda.lab.tasks"), new)
        where = f"`{cls.__module__}.{new}`, also `keras_rda.lab.tasks.{new}`"
        what = f"was renamed {new} ({where})" if new != name else f"moved to {where}"
        warnings.warn(
            f"`{module_name}.{name}` {what}; the old name is deprecated and "
            "will be removed in the next release.",
            DeprecationWarning,
            stacklevel=2,
        )
        return cls

    return __getattr__
