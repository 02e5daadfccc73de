"""Every page is one a user can follow on their machine, and the README's
summary of the papers is the claims records'.

- No page (README.md, docs/**/*.md, generated tables included) shows an
  absolute path of the machine a record was made on.
- The README's "The papers, reproduced or not" counts each paper's claims
  by verdict as `results/claims/*.json` do, line for line.
- Every record under `results/` is shown or read somewhere: a page names it
  (a generated table, a link, a command's `--json`), a claim reads it, or
  code reads it (a benchmark's summary, a test). A record nothing reads
  cannot be told from a current one by whoever finds it.
"""

import json
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
# /work/..., /tmp/..., /home/..., /root/..., /Users/..., C:\...
ABSOLUTE = re.compile(r"(?<![\w.~$/-])(?:/(?:work|tmp|home|root|Users)/|[A-Za-z]:\\)")


def test_the_path_check_catches_what_it_should():
    assert ABSOLUTE.search("--out /work/runs/add1000")
    assert ABSOLUTE.search("`--results-dir /tmp/rec`")
    assert ABSOLUTE.search("(local file /home/me/data.csv)")
    assert ABSOLUTE.search(r"C:\Users\me\data")
    assert not ABSOLUTE.search("--results-dir results/rda_paper")
    assert not ABSOLUTE.search("https://example.org/work/x and ../shared/data")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_machine_paths_on_a_page(page):
    found = [
        f"line {number}: {line.strip()[:160]}"
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if ABSOLUTE.search(line)
    ]
    assert not found, "\n".join(found)


def test_readme_summary_counts_the_claims():
    verdicts = (
        "reproduced",
        "direction only",
        "inconclusive (budget)",
        "not reproduced",
        "not run",
    )
    readme = (REPO / "README.md").read_text()
    section = readme.split("<!-- keras-rda report: claims -->")[1].split(
        "<!-- /keras-rda report -->"
    )[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"^\| \[(.+?)\]\((.+?)\) \| (.+) \|$", line)
        if match:
            rows[match.group(2)] = [int(n) for n in match.group(3).split(" | ")]
    fixes = json.loads((REPO / "results" / "fixes.json").read_text())["fixes"]
    fixed = {fix["id"]: set(fix["models"]) for fix in fixes}

    def before_a_fix(claim):
        """A claim reads a model from a record run before a fix of it (a
        reading without a model: any fix of the record)."""
        for reading in claim.get("ours", []):
            names = reading["record"]
            model = reading.get("model") or reading.get("where", {}).get("model")
            for name in [names] if isinstance(names, str) else names:
                record = json.loads((REPO / "results" / f"{name}.json").read_text())
                for fix_id in record.get("before_fixes", ()):
                    if model is None or model in fixed[fix_id]:
                        return True
        return False

    expected = {}
    for path in sorted((REPO / "results" / "claims").glob("*.json")):
        data = json.loads(path.read_text())
        counted = [v["verdict"] for v in data["claims"]]
        expected[data["page"]] = [counted.count(v) for v in verdicts]
        expected[data["page"]].append(sum(map(before_a_fix, data["claims"])))
        assert f"- **{data['title']}**: {data['summary']}" in section
        assert (REPO / data["page"]).is_file()
    assert rows == expected


def _readers():
    """The text of everything that may name a record: the pages, the claims
    records, and the code and tests."""
    texts = [page.read_text() for page in PAGES]
    claims = sorted((REPO / "results" / "claims").glob("*.json"))
    texts += [path.read_text() for path in claims]
    for folder in ("keras_rda", "benchmarks", "tests", "examples"):
        texts += [p.read_text() for p in sorted((REPO / folder).rglob("*.py"))]
    return "\n".join(texts)


def test_every_record_is_shown_or_read():
    readers = _readers()
    results = REPO / "results"
    unread = [
        name
        for name in (
            path.relative_to(results).with_suffix("").as_posix()
            for path in sorted(results.rglob("*.json"))
            if path.parent.name != "claims" and path.name != "fixes.json"
        )
        if name not in readers
    ]
    assert not unread, f"records that no page, claim or code reads: {unread}"
