"""The reporting modules import one another one way (a function's own
imports included): report reads claims, claims reads records, never back."""

import ast
import graphlib

from tests.conftest import REPO_ROOT

PACKAGE = "keras_rda.lab.reporting"
FOLDER = REPO_ROOT / "keras_rda" / "lab" / "reporting"


def _imports(path):
    """The reporting modules `path` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n.removeprefix(f"{PACKAGE}.").split(".")[0] for n in names}
    return found


def test_the_reporting_modules_import_one_another_without_a_cycle():
    modules = {path.stem for path in FOLDER.glob("*.py")} - {"__init__"}
    graph = {m: _imports(FOLDER / f"{m}.py") & modules - {m} for m in modules}
    order = list(graphlib.TopologicalSorter(graph).static_order())  # or raises
    assert order.index("records") < order.index("claims") < order.index("report")
