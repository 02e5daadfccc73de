"""Runs the UW paper's examples with `--quick` and checks what they report.

With `KERAS_RDA_DATA_DIR` set they read the real shared data (the AG News
test split, split 80/20; the 5,000 MNIST digits); without it they fall back
to tiny random data, so the test runs either way.
"""

import os
import pathlib
import runpy
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _run(name, monkeypatch, *arguments):
    path = EXAMPLES / name
    monkeypatch.setattr(sys, "argv", [str(path), "--quick", *arguments])
    return runpy.run_path(str(path), run_name="__main__")


def test_document_classification_quick(monkeypatch, capsys):
    namespace = _run("document_classification.py", monkeypatch)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert [r.split("|")[1].strip() for r in rows[1:]] == ["dnc-uw", "dnc-cuw", "lstm"]
    for row in rows[1:]:
        accuracy = float(row.split("|")[5])
        assert 0.0 <= accuracy <= 100.0
    assert namespace["model"].optimizer.iterations.numpy() > 0
    if os.environ.get("KERAS_RDA_DATA_DIR"):
        assert "ag_news_test.csv" in out and "6080 train / 1520 test" in out
    # The memory size follows the compression ratio (D + 1) / T = 0.2.
    data, memory_size = namespace["data"], namespace["memory_size"]
    average = max(2, round(float((data.x_train > 0).sum(1).mean())))
    assert memory_size == max(1, round(0.2 * average) - 1)


def test_document_classification_record(monkeypatch, capsys, tmp_path):
    """`--json` writes a record whose table is the printed one, with each
    model's per-epoch history, and which `keras-rda report` can render."""
    import json

    from keras_rda.lab.reporting import report

    path = tmp_path / "ag.json"
    _run(
        "document_classification.py",
        monkeypatch,
        "--models",
        "lstm,dnc-uw",
        "--seed",
        "3",
        "--json",
        str(path),
    )
    out = capsys.readouterr().out
    printed = [line for line in out.splitlines() if line.startswith("| ")][1:]
    record = json.loads(path.read_text())
    assert [row[0] for row in record["rows"]] == ["lstm", "dnc-uw"]
    for line, row in zip(printed, record["rows"]):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == row[0] and cells[1] == row[1]  # model, parameters
        assert int(cells[2]) == row[2]  # epochs
        assert float(cells[4]) == row[4]  # test accuracy
    assert [h["model"] for h in record["histories"]] == ["lstm", "dnc-uw"]
    for history, row in zip(record["histories"], record["rows"]):
        assert len(history["history"]["val_accuracy"]) == row[2]
    assert record["settings"]["seed"] == 3
    (command,) = record["commands"]
    assert record["kind"] == "table" and record["git"]["commit"]
    assert command["argv"][0] == "python"
    assert "--seed" in command["argv"]
    markdown = report.render(record, "uw_paper/ag_news")
    assert "| dnc-uw |" in markdown and "seed 3" in markdown


def test_document_classification_resumes(monkeypatch, capsys, tmp_path):
    """With `--checkpoint-dir`, a rerun returns the finished models without
    training them again (`fit_with_early_stopping` has the resume tests)."""
    arguments = ("--models", "lstm", "--checkpoint-dir", str(tmp_path))
    _run("document_classification.py", monkeypatch, *arguments)
    first = capsys.readouterr().out
    assert (tmp_path / "lstm" / "result.json").exists()
    namespace = _run("document_classification.py", monkeypatch, *arguments)
    again = capsys.readouterr().out
    assert "finished earlier" in again and "finished earlier" not in first
    assert namespace["model"].optimizer.iterations.numpy() > 0  # restored
    table = [line for line in first.splitlines() if line.startswith("| lstm")]
    assert table == [line for line in again.splitlines() if line.startswith("| lstm")]


def test_mnist_dnc_cuw_quick(monkeypatch, capsys):
    namespace = _run("mnist_dnc_cuw.py", monkeypatch)
    out = capsys.readouterr().out
    assert "DNC cached_uniform" in out and "test accuracy:" in out
    model = namespace["model"]
    assert model.optimizer.iterations.numpy() > 0
    cell = model.layers[0].cell
    assert type(cell.controller).__name__ == "GRUCell"
    assert type(cell.write_schedule).__name__ == "CachedUniformWriting"


@pytest.mark.parametrize("k", [1, 2, 4, 7])
def test_mnist_pooling_keeps_block_means(k, monkeypatch):
    """The `--pool` helper against a direct loop over the 28 x 28 grid."""
    import numpy as np

    monkeypatch.setattr(sys, "argv", ["mnist_dnc_cuw.py", "--quick"])
    source = (EXAMPLES / "mnist_dnc_cuw.py").read_text()
    start = source.index("def pool(")
    end = source.index("x_train, x_test = pool(")
    namespace = {}
    exec(source[start:end], namespace)  # noqa: S102 - the helper only
    x = np.random.default_rng(0).random((2, 784, 1)).astype("float32")
    pooled = namespace["pool"](x, k)
    side = 28 // k
    grid = x[:, :, 0].reshape(2, 28, 28)
    expected = np.array(
        [
            [
                grid[n, i * k : (i + 1) * k, j * k : (j + 1) * k].mean()
                for i in range(side)
                for j in range(side)
            ]
            for n in range(2)
        ]
    )
    np.testing.assert_allclose(pooled[:, :, 0], expected, rtol=1e-5)
