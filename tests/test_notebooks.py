"""The notebooks: their commands exist, and they run top to bottom.

`test_notebook_runs` executes every notebook in a fresh Jupyter kernel
(nbclient), in a temporary working directory, with `KERAS_RDA_QUICK=1` (the
Colab notebook's quick scale) and the real data of `KERAS_RDA_DATA_DIR`. A
cell that raises, including a `%%bash` cell whose command exits non-zero,
fails the test. Colab-only cells (the install line, Google Drive) are guarded
by `IN_COLAB` and skipped.
"""

import ast
import json
import os
import pathlib
import re
import shlex

import pytest

from keras_rda.lab.cli import build_parser
from keras_rda.lab.tasks import task_names

NOTEBOOKS = sorted(
    (pathlib.Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb")
)


def code_cells(path):
    notebook = json.loads(path.read_text())
    assert notebook["nbformat"] == 4
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


def python_source(cell):
    """The cell as Python: IPython `!` lines become `pass`, shell cells vanish."""
    if cell.startswith("%%"):
        return ""
    lines = []
    for line in cell.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("!", "%")):
            line = line[: len(line) - len(stripped)] + "pass"
        lines.append(line)
    return "\n".join(lines)


def keras_rda_commands(cell):
    """Argument lists of the `keras-rda` commands in a cell.

    A `$VAR` that is a flag's value becomes a placeholder; other `$VARS`
    (lists of arguments set by the notebook) are dropped.
    """
    commands = []
    for line in cell.splitlines():
        line = line.lstrip("!# ").strip()
        if line.startswith("keras-rda "):
            argv = []
            for word in shlex.split(line)[1:]:
                if not word.startswith("$"):
                    argv.append(word)
                elif argv and argv[-1].startswith("--"):
                    argv.append("VALUE")  # `--out "$DIR"`: a flag's value
            commands.append(argv)
    return commands


def test_there_are_two_notebooks():
    assert {p.stem for p in NOTEBOOKS} >= {"keras_rda_colab", "rda_in_your_own_model"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_code_parses_and_uses_existing_commands_and_tasks(path):
    parser = build_parser()
    for source in code_cells(path):
        ast.parse(python_source(source))
        for argv in keras_rda_commands(source):
            parser.parse_args(argv)  # exits (SystemExit) on unknown flags
        for name in re.findall(r'get_task\("([^"]+)"', source):
            assert name in task_names()


def test_colab_only_cells_are_guarded():
    """The install line and Google Drive run only in Colab."""
    (colab,) = [p for p in NOTEBOOKS if p.stem == "keras_rda_colab"]
    for source in code_cells(colab):
        for line in source.splitlines():
            if "pip install" in line or "google.colab import" in line:
                assert line.startswith("    "), line  # inside `if IN_COLAB:`
                assert "if IN_COLAB:" in source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, data_dir, tmp_path, monkeypatch):
    import nbclient
    import nbformat

    monkeypatch.setenv("KERAS_RDA_QUICK", "1")
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(data_dir))
    # The kernel's own inline backend turns figures into image outputs.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    # The kernel is a new process: it imports keras_rda from the same place.
    repo = str(pathlib.Path(__file__).resolve().parents[1])
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])),
    )
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = [o for c in notebook.cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    if path.stem == "keras_rda_colab":
        assert (tmp_path / "runs" / "multicopy-compare.png").is_file()
        assert (tmp_path / "rda_addition_savedmodel" / "saved_model.pb").is_file()
    else:
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        assert len(images) == 2  # the two attention plots
        assert (tmp_path / "rda_sentiment.keras").is_file()
