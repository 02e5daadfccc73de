"""Passing a constructor's named arguments on.

The public layers and cells keep explicit signatures, as Keras's own do
(`keras.layers.LSTM` lists every `LSTMCell` argument): that is what `help()`
and IDEs show. Where a constructor hands most of them unchanged to a base
class or to the cell it builds, it takes them from `locals()` with
`constructor_arguments` instead of writing each `name=name` again.
"""

# What `locals()` holds in a constructor besides its named arguments: the
# instance, its `**kwargs`, and the cell Python adds for `super()`.
_NOT_ARGUMENTS = ("self", "kwargs", "__class__")


def constructor_arguments(local_variables, exclude=()):
    """The named arguments of a constructor, from its `locals()`.

    Args:
        local_variables: `locals()`, taken before the constructor binds
            any local other than its arguments (an argument it has
            replaced, e.g. a default resolved, is passed on replaced).
        exclude: names to leave out (arguments the constructor keeps).

    Returns:
        A dict `{argument: value}` in signature order, without `self`,
        `**kwargs`, `__class__` and `exclude`.
    """
    left_out = _NOT_ARGUMENTS + tuple(exclude)
    return {
        name: value for name, value in local_variables.items() if name not in left_out
    }
