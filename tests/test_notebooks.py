"""The Colab notebooks: valid notebooks whose code uses the real API."""

import ast
import json
import pathlib
import re

import pytest

from keras_rda.cli import build_parser
from keras_rda.tasks import task_names

NOTEBOOKS = sorted(
    (pathlib.Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb")
)


def code_cells(path):
    notebook = json.loads(path.read_text())
    assert notebook["nbformat"] == 4
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_code_parses_and_uses_existing_commands_and_tasks(path):
    assert NOTEBOOKS, "no notebooks found"
    parser = build_parser()
    for source in code_cells(path):
        python = "\n".join(
            line
            for line in source.splitlines()
            if not line.lstrip().startswith(("!", "%"))
        )
        ast.parse(python)
        for line in source.splitlines():
            line = line.lstrip("# ").strip()
            if line.startswith("!keras-rda "):
                argv = line[len("!keras-rda ") :].split()
                parser.parse_args(argv)  # exits (SystemExit) on unknown flags
        for name in re.findall(r'get_task\("([^"]+)"', source):
            assert name in task_names()
