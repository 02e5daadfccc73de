"""Small class-labelled CSV files written by the tests."""

import csv

import pytest


def write_csv(path, rows):
    """Writes `rows` as a Zhang et al. style CSV (every field quoted)."""
    with open(path, "w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)


@pytest.fixture
def small_csv(tmp_path):
    """40 AG-News-like rows, classes 1-4 in turn; `(path, rows)`."""
    rows = []
    for i in range(40):
        label = i % 4 + 1
        rows.append([str(label), f"title{label} word{i}", f"topic{label} body\\nmore"])
    path = tmp_path / "news.csv"
    write_csv(path, rows)
    return path, rows
