"""`keras-rda report`: the docs' marked tables are what their records give."""

import json
import shutil

from keras_rda.lab.cli import main
from keras_rda.lab.reporting import report
from tests.conftest import REPO_ROOT


def test_docs_tables_match_their_records():
    """Fails when a generated table in README.md or docs/ was edited by hand,
    or a record changed without `keras-rda report` being rerun."""
    stale = []
    for path in report.documents(REPO_ROOT):
        text = path.read_text()
        rebuilt, _ = report.rebuild_tables(text, REPO_ROOT / "results")
        if rebuilt != text:
            stale.append(path.name)
    assert not stale, f"run `keras-rda report`: tables differ in {stale}"


def _checkout(tmp_path):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    record = {
        "kind": "comparison",
        "task": "reber",
        "metric": "accuracy",
        "baseline": 0.5,
        "threshold": ["accuracy", ">", 0.5],
        "commands": [
            {"argv": ["keras-rda", "compare", "reber", "--models", "gru"], "env": {}}
        ],
        "runs": [
            {
                "model": "gru",
                "steps": 50,
                "curve": [{"step": 50, "val_accuracy": 0.75}],
                "steps_to_threshold": 50,
                "final": {"accuracy": 0.75, "loss": 0.5},
                "seconds": 1.0,
                "params": 7,
                "diverged": False,
            }
        ],
    }
    (root / "results").mkdir()
    (root / "results" / "reber-compare.json").write_text(json.dumps(record))
    marked = (
        "<!-- keras-rda report: reber-compare -->\nold\n<!-- /keras-rda report -->\n"
    )
    (root / "README.md").write_text("# x\n" + marked)
    (root / "docs" / "page.md").write_text("no tables here\n")
    return root


def test_report_rebuilds_then_check_passes(tmp_path, capsys):
    root = _checkout(tmp_path)
    assert main(["report", "--root", str(root), "--check"]) == 1
    assert "README.md" in capsys.readouterr().err
    assert "old" in (root / "README.md").read_text()  # --check writes nothing
    assert main(["report", "--root", str(root)]) == 0
    text = (root / "README.md").read_text()
    assert "| gru | 50 | 0.7500 | 0.5 | 7 | 1 |" in text and "\nold\n" not in text
    # The command a user runs: the record's own, writing it where it is.
    assert (
        "Command: `keras-rda compare reber --models gru --results-dir results`" in text
    )
    assert (root / "docs" / "page.md").read_text() == "no tables here\n"
    assert main(["report", "--root", str(root), "--check"]) == 0
    # A hand edit of a generated number is caught.
    (root / "README.md").write_text(text.replace("0.7500", "0.8000"))
    assert main(["report", "--root", str(root), "--check"]) == 1


def test_report_errors_are_one_line(tmp_path, capsys):
    root = _checkout(tmp_path)
    shutil.rmtree(root / "results")
    assert main(["report", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no record" in err
    assert main(["report", "--root", str(tmp_path / "nowhere")]) == 2
