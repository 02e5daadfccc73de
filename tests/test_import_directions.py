"""No import runs both ways between the subpackages of keras_rda.

Read from the source (AST), every import counted, also those inside
functions. `__main__` modules are entry shims that nothing imports.
"""

import ast
import itertools
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "keras_rda"


def _subpackage(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "keras_rda" else None


def package_imports():
    """`{(importer, imported)}` between subpackages of keras_rda."""
    edges = set()
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        if relative.name == "__main__" or len(relative.parts) < 3:
            continue  # entry shims; top-level modules (keras_rda/*.py)
        importer = relative.parts[1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                imported = _subpackage(name)
                if imported and imported != importer:
                    edges.add((importer, imported))
    return edges


def test_no_import_runs_both_ways():
    edges = package_imports()
    assert ("cli", "experiments") in edges and ("training", "experiments") in edges
    both_ways = sorted(
        (a, b)
        for a, b in itertools.combinations(sorted({*sum(edges, ())}), 2)
        if (a, b) in edges and (b, a) in edges
    )
    assert not both_ways, both_ways


def test_nothing_imports_the_command_line():
    assert not [a for a, b in package_imports() if b == "cli"]
