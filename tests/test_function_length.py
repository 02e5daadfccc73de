"""No library function is longer than 80 lines (issue 82, point 4).

The library is every `.py` file under `keras_rda/` except `keras_rda/lab/`.
A function's length is `end_lineno - lineno + 1` of its `ast.FunctionDef`
(or `AsyncFunctionDef`): from its `def` line to its last line, docstring
included, decorators not; methods and nested functions count on their own.
A longer function is split by structure (helpers for repeated blocks), never
by joining lines.
"""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "keras_rda"
LAB = PACKAGE / "lab"
MAX_LINES = 80


def library_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if not p.is_relative_to(LAB))


def long_functions(source, max_lines=MAX_LINES):
    """`[(name, first line, length)]` of the functions in `source` longer
    than `max_lines`."""
    return [
        (node.name, node.lineno, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > max_lines
    ]


def test_no_library_function_is_longer_than_80_lines():
    files = library_files()
    assert len(files) > 20, files  # the walk found the library
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {name} ({length} lines)"
        for path in files
        for name, line, length in long_functions(path.read_text())
    ]
    assert not offenders, (
        f"library functions over {MAX_LINES} lines (def line to last line): "
        + "; ".join(offenders)
    )


def test_the_length_is_def_line_to_last_line():
    """80 lines pass, 81 fail, whatever the lines are (docstring, body,
    nested functions, methods)."""
    body = "".join(f"    x{i} = {i}\n" for i in range(78))
    at_limit = f'def f():\n    """Doc."""\n{body}'
    assert long_functions(at_limit) == []
    assert long_functions(at_limit + "    return x0\n") == [("f", 1, 81)]
    nested = "class C:\n    async def g(self):\n" + "        pass\n" * 80
    assert long_functions(nested) == [("g", 2, 81)]
