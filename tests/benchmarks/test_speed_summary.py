"""`benchmarks/speed_summary.py`: the README's speed table is what its
source records give, and every source is a record in `results/`."""

import json

from tests.benchmarks.conftest import benchmark_script
from tests.conftest import REPO_ROOT


def test_summary_record_agrees_with_its_sources():
    with benchmark_script("speed_summary") as speed_summary:
        table = speed_summary.summary_table(REPO_ROOT / "results")
    record = json.loads(
        (REPO_ROOT / "results" / "benchmarks" / "speed_summary.json").read_text()
    )
    for key in ("columns", "rows", "notes", "sources"):
        assert record[key] == table[key], f"rerun {speed_summary.COMMAND}"
    for source in record["sources"]:
        assert (REPO_ROOT / source).is_file()
