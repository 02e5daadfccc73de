"""Every constructor argument of a public cell or layer is in its signature
and in its docstring's Args section (Keras's style: `help()` shows them,
`**kwargs` is only for `keras.layers.Layer`'s own arguments)."""

import inspect
import re

import pytest

import keras_rda
from keras_rda import cells
from keras_rda import layers

PUBLIC = sorted(
    {getattr(cells, name) for name in cells.__all__}
    | {getattr(layers, name) for name in layers.__all__},
    key=lambda cls: cls.__name__,
)

# An entry of an Args section: `name: ...` or `name, other: ...`.
_ENTRY = re.compile(r"^([*\w]+(?:, [*\w]+)*):")


def documented_arguments(docstring):
    """The names an `Args:` section of a Google-style docstring documents.

    Entries are the lines one level (4 spaces) deeper than `Args:`; the
    section ends at the first non-empty line that is not deeper than it.
    """
    lines = inspect.cleandoc(docstring).splitlines()
    start = [i for i, line in enumerate(lines) if line.strip() == "Args:"]
    assert len(start) == 1, "expected one Args section"
    indent = len(lines[start[0]]) - len(lines[start[0]].lstrip())
    names = []
    for line in lines[start[0] + 1 :]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth <= indent:
            break
        match = _ENTRY.match(line.strip())
        if depth == indent + 4 and match:
            names.extend(match.group(1).split(", "))
    return names


def signature_arguments(cls):
    parameters = inspect.signature(cls.__init__).parameters.values()
    return [
        p.name
        for p in parameters
        if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
    ]


def test_the_parser_reads_entries_not_their_continuations():
    docstring = """Summary.

    Args:
        units: the size.
            not_an_entry: a continuation line.
        first, second: two at once.
        **kwargs: the rest.

    Call arguments:
        inputs: not a constructor argument.
    """
    assert documented_arguments(docstring) == ["units", "first", "second", "**kwargs"]


def test_every_public_cell_and_layer_is_checked():
    names = {cls.__name__ for cls in PUBLIC}
    assert {"RWACell", "RDACell", "ParallelRDACell", "RWA", "RDA"} <= names
    assert {"ParallelRDA", "FeedForwardAttention", "WeiNetCell"} <= names
    assert all(getattr(keras_rda, name) is cls for name, cls in _by_name().items())


def _by_name():
    return {cls.__name__: cls for cls in PUBLIC}


@pytest.mark.parametrize("cls", PUBLIC, ids=lambda cls: cls.__name__)
def test_documented_arguments_are_the_signature(cls):
    documented = documented_arguments(cls.__doc__)
    assert "**kwargs" in documented, "**kwargs (the base Layer's) is documented"
    documented.remove("**kwargs")
    signature = signature_arguments(cls)
    assert len(documented) == len(set(documented)), "an argument documented twice"
    assert set(documented) - set(signature) == set(), "documented, not in signature"
    assert set(signature) - set(documented) == set(), "in signature, not documented"


@pytest.mark.parametrize("cls", PUBLIC, ids=lambda cls: cls.__name__)
def test_documented_in_signature_order(cls):
    documented = [n for n in documented_arguments(cls.__doc__) if n != "**kwargs"]
    assert documented == signature_arguments(cls)
