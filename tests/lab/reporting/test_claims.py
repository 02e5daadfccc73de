"""The papers' verdict tables (`results/claims/*.json`, docs/papers/*.md).

Every "ours" number of a paper page is read from a record by `keras-rda
report`; these tests check that the claims records are well formed, that
every verdict agrees with its conditions on those numbers, that every
record behind a page carries its command, commit and seed, and that the
pages are what the records give.
"""

import json
import math
import re

import pytest

from keras_rda.lab.cli import main
from keras_rda.lab.reporting import claims
from keras_rda.lab.reporting import records
from keras_rda.lab.reporting import report
from tests.conftest import REPO_ROOT

RESULTS = REPO_ROOT / "results"
CLAIMS = sorted((RESULTS / "claims").glob("*.json"))
PAPERS = ("rda", "rwa", "uw", "weinet", "ffa")
PAGES = [REPO_ROOT / "docs" / "papers" / f"{p}.md" for p in PAPERS]
PAGES.append(REPO_ROOT / "docs" / "benchmarks.md")


def _claims(path):
    return json.loads(path.read_text())


def _readings(claim):
    return {r["label"]: claims.read(r, RESULTS) for r in claim.get("ours", [])}


# --- The semantics of values and conditions --------------------------------


def test_a_bound_supports_only_what_holds_for_every_larger_value():
    """'More than 3,600 steps' is at least 3 x 850 but not known to be at
    least 3 x 2,000, and not below anything."""
    more = claims.Value.more_than(3600)
    readings = {
        "LSTM": claims.Reading("LSTM", more, 1, "median", "int"),
        "RDA": claims.Reading("RDA", claims.Value.exact(850), 1, "median", "int"),
        "slow": claims.Reading("slow", claims.Value.exact(2000), 1, "median", "int"),
    }
    assert claims.holds(
        {"left": "LSTM", "op": ">=", "right": "RDA", "times": 3}, readings
    )
    assert not claims.holds(
        {"left": "LSTM", "op": ">=", "right": "slow", "times": 3}, readings
    )
    assert claims.holds({"left": "RDA", "op": "<", "right": "LSTM"}, readings)
    assert not claims.holds({"left": "LSTM", "op": "<", "right": 10**9}, readings)
    # "more than 3,600" exceeds 3,600 itself.
    assert claims.holds({"left": "LSTM", "op": ">", "right": 3600}, readings)
    assert claims.holds({"left": "LSTM", "op": "never"}, readings)
    assert not claims.holds({"left": "LSTM", "op": "met"}, readings)
    assert claims.holds({"left": "RDA", "op": "~", "right": 860, "tol": 10}, readings)
    assert not claims.holds(
        {"left": "RDA", "op": "~", "right": 861, "tol": 10}, readings
    )
    with pytest.raises(ValueError, match="no reading"):
        claims.holds({"left": "GRU", "op": "met"}, readings)


def test_aggregates_bound_the_true_value():
    """Seeds that never met a threshold read 'more than their steps'; the
    median of [250, > 400, > 400] is more than 400, of [250, 325, > 400]
    exactly 325."""
    a = [claims.Value.exact(250), claims.Value.more_than(400)]
    assert claims.aggregate(a + [claims.Value.more_than(400)]) == claims.Value(
        400, math.inf
    )
    assert claims.aggregate(a + [claims.Value.exact(325)]) == claims.Value(325, 325)
    assert claims.aggregate(a, "min") == claims.Value(250, 250)
    assert claims.format_value(claims.Value.more_than(3600), "int") == "> 3,600"
    assert claims.format_value(claims.Value.exact(0.5), "pct") == "50.0%"
    assert claims.format_value(claims.Value.exact(80.3), "1f%") == "80.3%"


def _claim(verdict, direction=(), magnitude=(), ours=True):
    return {
        "verdict": verdict,
        "ours": [{"label": "A"}] if ours else [],
        "direction": list(direction),
        "magnitude": list(magnitude),
    }


def test_check_verdict_rules():
    readings = {"A": claims.Reading("A", claims.Value.exact(1), 1, "median", "int")}
    yes = {"left": "A", "op": "<", "right": 2}
    no = {"left": "A", "op": ">", "right": 2}
    check = claims.check_verdict
    assert check(_claim("reproduced", [yes], [yes]), readings) == []
    assert check(_claim("reproduced", [yes], [no]), readings)
    assert check(_claim("reproduced"), readings)  # no condition at all
    assert check(_claim("direction only", [yes], [no]), readings) == []
    assert check(_claim("direction only", [yes]), readings) == []
    assert check(_claim("direction only", [yes], [yes]), readings)  # reproduced
    assert check(_claim("direction only", [no], [no]), readings)
    assert check(_claim("not reproduced", [no]), readings) == []
    assert check(_claim("not reproduced", [yes], [no]), readings) == []
    assert check(_claim("not reproduced", [yes], [yes]), readings)
    assert check(_claim("not run", ours=False), {}) == []
    assert check(_claim("not run"), readings)
    assert check(_claim("not reproduced", [no], ours=False), {})
    assert check(_claim("tried"), readings)


def _reading(label, *values):
    """A Reading over runs with `values` (Values), their median."""
    return claims.Reading(
        label,
        claims.aggregate(list(values)),
        len(values),
        "median",
        "int",
        spread=claims.Value(min(v.low for v in values), max(v.high for v in values)),
    )


def test_a_condition_is_contradicted_only_beyond_the_spread_and_the_tie():
    exact, more = claims.Value.exact, claims.Value.more_than
    readings = {
        "A": _reading("A", exact(250), exact(300), exact(400)),
        "B": _reading("B", exact(200), exact(280), exact(350)),
        "C": _reading("C", exact(500)),
        "never": _reading("never", more(3600)),
        "also never": _reading("also never", more(3600)),
    }
    contradicts = claims.contradicts
    # A's median is above B's, but the seeds overlap: not contradicted.
    assert not claims.holds({"left": "A", "op": "<", "right": "B"}, readings)
    assert not contradicts({"left": "A", "op": "<", "right": "B"}, readings)
    # C above every seed of A: contradicted, unless within the tie.
    assert contradicts({"left": "C", "op": "<", "right": "A"}, readings)
    assert contradicts({"left": "A", "op": ">", "right": "C"}, readings)
    assert not contradicts({"left": "C", "op": "<", "right": "A", "tie": 100}, readings)
    assert contradicts({"left": "C", "op": "<", "right": "A", "tie": 99}, readings)
    # Two units that never met the threshold: neither order is contradicted.
    for op in ("<", ">"):
        condition = {"left": "never", "op": op, "right": "also never"}
        assert not claims.holds(condition, readings)
        assert not contradicts(condition, readings)
    # A threshold not met may be met later; one met contradicts `never`.
    assert not contradicts({"left": "never", "op": "met"}, readings)
    assert contradicts({"left": "C", "op": "never"}, readings)
    assert not contradicts({"left": "never", "op": "never"}, readings)
    # More than 3,600 steps is already beyond 1.5 x 2,000.
    assert contradicts(
        {"left": "never", "op": "<=", "right": 2000, "times": 1.5}, readings
    )
    assert not contradicts(
        {"left": "never", "op": "<=", "right": 5329, "times": 1.5}, readings
    )
    assert contradicts({"left": "C", "op": "~", "right": 400, "tol": 50}, readings)
    assert not contradicts({"left": "C", "op": "~", "right": 400, "tol": 100}, readings)


def test_a_short_run_that_does_not_contradict_the_paper_is_inconclusive():
    """The fifth verdict: short of the paper's budget and nothing
    contradicted is 'inconclusive (budget)', not 'not reproduced'; short
    and contradicted stays 'not reproduced'; at the budget (or without
    one) the verdicts are as before, and 'inconclusive' is refused."""
    exact, more = claims.Value.exact, claims.Value.more_than
    readings = {
        "RDA": _reading("RDA", more(3600)),
        "LSTM": _reading("LSTM", more(3600)),
        "GRU": _reading("GRU", exact(3000)),
    }
    check = claims.check_verdict
    undecided = {"left": "RDA", "op": "<", "right": "LSTM"}  # both > 3,600
    contradicted = {"left": "RDA", "op": "<", "right": "GRU"}  # > 3,600 vs 3,000
    holds = {"left": "GRU", "op": "<", "right": "LSTM"}
    short = ["3,600 of the paper's 20,000 steps (18%)"]
    inconclusive = claims.INCONCLUSIVE

    # Short, and what fails could still hold: inconclusive, not "not reproduced".
    assert check(_claim(inconclusive, [undecided, holds]), readings, short) == []
    assert check(_claim("not reproduced", [undecided, holds]), readings, short)
    assert check(_claim(inconclusive, magnitude=[undecided]), readings, short) == []
    # Short, but a condition is contradicted: not reproduced.
    assert (
        check(_claim("not reproduced", [undecided, contradicted]), readings, short)
        == []
    )
    assert check(_claim(inconclusive, [undecided, contradicted]), readings, short)
    # Short, and every condition holds: judged on the numbers.
    assert check(_claim("reproduced", [holds]), readings, short) == []
    assert check(_claim(inconclusive, [holds]), readings, short)
    # Short with the direction holding and a magnitude open: direction only.
    assert check(_claim("direction only", [holds], [undecided]), readings, short) == []
    assert check(_claim(inconclusive, [holds], [undecided]), readings, short)
    # At the paper's budget: judged as before, never inconclusive.
    assert check(_claim("not reproduced", [undecided, holds]), readings) == []
    assert check(_claim(inconclusive, [undecided, holds]), readings)


def _budget_record(tmp_path, name, runs, **more):
    curve = [{"step": 100, "val_accuracy": 0.5}]
    record = {
        "kind": "comparison",
        "metric": "accuracy",
        "scale": "paper",
        "machine": {"accelerators": []},
        **more,
        "runs": [
            {
                "model": model,
                "steps": steps,
                "steps_to_threshold": reached,
                "final": {"accuracy": 0.5},
                "curve": curve,
                "seconds": 1800.0,
                "cpu_seconds": 3600.0,
                "settings": {"seed": seed, "stop_at_threshold": stop},
            }
            for model, seed, steps, reached, stop in runs
        ],
    }
    (tmp_path / f"{name}.json").write_text(json.dumps(record))


def test_the_budget_is_read_from_the_records(tmp_path):
    """Steps, seeds and CPU-hours come from the runs a claim reads; a run
    falls short of the paper's steps unless it stopped at its threshold,
    fewer seeds than the paper's fall short, and so does a smaller scale."""
    _budget_record(
        tmp_path,
        "copy",
        [
            ("rda", 0, 3600, None, True),  # stopped at 3,600 steps: short
            ("gru", 0, 2000, 2000, True),  # stopped at its threshold: done
            ("lstm", 0, 1600, 400, False),  # met it by noise, killed at 1,600
        ],
    )
    _budget_record(tmp_path, "small", [("rda", 0, 400, None, False)], scale="small")

    def claim(budget, models=("rda", "gru"), record="copy"):
        return {
            "id": "x",
            "ours": [
                {"label": m, "record": record, "model": m, "value": "final"}
                for m in models
            ],
            "budget": budget,
        }

    took = claims.ran(claim({}), tmp_path)
    assert took.steps == (2000, 3600) and took.seeds == (0,)
    assert took.cpu_hours == pytest.approx(2.0) and took.runs == 2
    assert (
        claims.ran_text(took) == "2,000 to 3,600 steps, seed 0, 2.0 CPU-hours (2 runs)"
    )
    assert claims.shortfalls(claim({"steps": 20000}), tmp_path) == [
        "3,600 of the paper's 20,000 steps (18%)"
    ]
    assert claims.shortfalls(claim({"steps": 3600}), tmp_path) == []
    assert claims.shortfalls(claim({"steps": 3000}, ["lstm"]), tmp_path) == [
        "1,600 of the paper's 3,000 steps (53%)"
    ]
    assert (
        claims.shortfalls(claim({"readings": ["gru"], "steps": 20000}), tmp_path) == []
    )
    assert claims.shortfalls(claim({"seeds": 3}), tmp_path) == [
        "1 seed of the paper's 3"
    ]
    assert claims.shortfalls(
        claim({"epochs": 50, "steps_per_epoch": 100, "part": "RDA"}, ["rda"]),
        tmp_path,
    ) == ["RDA: 36 of the paper's 50 epochs (72%)"]
    assert claims.shortfalls(
        claim({"scale": "250 units"}, ["rda"], "small"), tmp_path
    ) == ["at the small scale (the paper's: 250 units)"]
    text = claims.budget_text(claim({"steps": 20000}), tmp_path)
    assert "*Short of the paper's budget:* 3,600 of the paper's 20,000 steps" in text
    assert "*At the paper's budget.*" in claims.budget_text(
        claim({"steps": 10}), tmp_path
    )
    # A record's scale is its preset's name: short only where the budget
    # states the paper's sizes.
    assert claims.shortfalls(claim({"steps": 400}, ["rda"], "small"), tmp_path) == []
    # The note cites where the paper states its budget, or what it leaves out.
    cited = claims.budget_text(
        claim({"source": "section 6.3, Table 5", "steps": 20000}), tmp_path
    )
    assert "*Short of the paper's budget (section 6.3, Table 5):* 3,600 of" in cited
    unstated = claims.budget_text(
        claim({"source": "section 6.3", "unstated": "how long it trained"}), tmp_path
    )
    assert "At the paper's budget" not in unstated
    assert "*Not stated in the paper (section 6.3):* how long it trained." in unstated
    with pytest.raises(ValueError, match="unknown budget keys"):
        claims.shortfalls(claim({"step": 10}), tmp_path)
    with pytest.raises(ValueError, match="names"):
        claims.shortfalls(claim({"readings": ["GRU"], "steps": 10}), tmp_path)
    with pytest.raises(ValueError, match="steps_per_epoch"):
        claims.shortfalls(claim({"epochs": 5}), tmp_path)


def test_a_trial_at_100_percent_settles_its_reading(tmp_path):
    """The paper reports the best of its learning rates: where one trial of
    a reading reaches 100%, the others' fewer epochs are no shortfall."""
    trials = [
        {"T0": 500, "learning_rate": 0.003, "epochs_to_100": None},
        {"T0": 500, "learning_rate": 0.01, "epochs_to_100": 3},
        {"T0": 1000, "learning_rate": 0.01, "epochs_to_100": None},
    ]
    for trial in trials:
        trial["accuracy_per_epoch"] = [0.9] * (trial["epochs_to_100"] or 3)
    (tmp_path / "table.json").write_text(json.dumps({"trials": trials}))

    def claim(t0):
        return {
            "id": "x",
            "ours": [
                {"label": "A", "record": "table", "value": "epochs_to_100"}
                | {"where": {"T0": t0}}
            ],
            "budget": {"epochs": 4},
        }

    assert claims.shortfalls(claim(500), tmp_path) == []
    assert claims.shortfalls(claim(1000), tmp_path) == [
        "3 of the paper's 4 epochs (75%)"
    ]


def test_the_fifth_verdict_is_judged_from_the_records(tmp_path):
    """End to end, from run records and the paper's budget: a run short of
    it whose outcome does not contradict the paper is inconclusive (budget);
    a short run that contradicts it is not reproduced; so is a run at the
    paper's budget that misses, however little."""

    def judge(verdict, runs, steps=20000):
        _budget_record(tmp_path, "copy", runs)
        claim = {
            "id": "copy-order",
            "ours": [
                {
                    "label": m,
                    "record": "copy",
                    "model": m,
                    "value": "steps_to_threshold",
                }
                for m in ("rda", "lstm")
            ],
            "direction": [{"left": "rda", "op": "<", "right": "lstm"}],
            "budget": {"source": "Table 5", "steps": steps},
            "verdict": verdict,
        }
        readings = {r["label"]: claims.read(r, tmp_path) for r in claim["ours"]}
        return claims.check_verdict(claim, readings, claims.shortfalls(claim, tmp_path))

    inconclusive, missed = claims.INCONCLUSIVE, "not reproduced"
    # 3,600 of 20,000 steps, neither unit at the threshold: a longer run may
    # still put the RDA first.
    neither = [("rda", 0, 3600, None, True), ("lstm", 0, 3600, None, True)]
    assert judge(inconclusive, neither) == []
    assert any("inconclusive" in p for p in judge(missed, neither))
    # Short, but the LSTM met the threshold where the RDA did not: contradicted.
    reversed_ = [("rda", 0, 3600, None, True), ("lstm", 0, 3000, 3000, True)]
    assert judge(missed, reversed_) == []
    assert any("contradicted" in p for p in judge(inconclusive, reversed_))
    # At the paper's budget, neither met it: the claim is missed.
    assert judge(missed, neither, steps=3600) == []
    assert any("no run stopped short" in p for p in judge(inconclusive, neither, 3600))


# --- The claims records ---------------------------------------------------


def test_every_paper_has_a_claims_record():
    assert sorted(p.stem for p in CLAIMS) == sorted(PAPERS)


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: p.stem)
def test_claims_records_are_well_formed(path):
    data = _claims(path)
    assert data["kind"] == "claims" and data["paper"]
    ids = [c["id"] for c in data["claims"]]
    assert len(ids) == len(set(ids)), "claim ids repeat"
    for claim in data["claims"]:
        for key in ("claim", "source", "paper", "setting", "verdict"):
            assert claim.get(key), f"{claim['id']}: no {key!r}"
        assert claim["verdict"] in claims.VERDICTS
        labels = [r["label"] for r in claim.get("ours", [])]
        assert len(labels) == len(set(labels)), f"{claim['id']}: labels repeat"
        for condition in claim.get("direction", []) + claim.get("magnitude", []):
            assert condition["op"] in claims.OPS
            for side in ("left", "right"):
                value = condition.get(side)
                assert (
                    value is None
                    or isinstance(value, (int, float))
                    or (value in labels)
                ), f"{claim['id']}: {value!r} is no reading"
        # A source cites the paper: a section, table, figure or appendix.
        assert re.search(r"section|Table|Figure|appendix", claim["source"])
        # A claim that reads runs says what the paper's budget is, or what
        # the paper leaves out of it, and where.
        if claims.ran(claim, RESULTS) is not None:
            assert claims.budgets(claim), f"{claim['id']}: no budget"
        for entry in claims.budgets(claim):
            assert re.search(r"section|Table|Figure|appendix", entry["source"])
            assert entry.get("unstated") or any(
                entry.get(key) for key in claims.BUDGET_AMOUNTS
            ), f"{claim['id']}: a budget entry states nothing"


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: p.stem)
def test_every_verdict_agrees_with_the_numbers_of_its_records(path):
    """Where the rule is mechanical: a reproduced claim's conditions hold on
    our numbers, a direction-only claim's direction holds, a claim not
    reproduced has a condition that fails (and, on runs short of the
    paper's budget, one that is contradicted), an inconclusive one ran
    short and contradicts nothing, a claim not run has no number."""
    problems = {}
    for claim in _claims(path)["claims"]:
        short = claims.shortfalls(claim, RESULTS)
        found = claims.check_verdict(claim, _readings(claim), short)
        if found:
            problems[claim["id"]] = found
    assert not problems


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: p.stem)
def test_every_record_behind_a_claim_has_command_commit_and_seed(path):
    missing = []
    for name in claims.record_names(_claims(path)):
        record = records.load(RESULTS, name)
        command, commits, seeds = claims.provenance(record)
        if not command:
            missing.append(f"{name}: command")
        if not commits:
            missing.append(f"{name}: commit")
        if not seeds and not claims.is_timing_record(record):
            missing.append(f"{name}: seed")
    assert not missing


def test_provenance_names_the_commit_of_every_run_of_a_merged_record():
    """Seeds run in separate processes at different commits and merged into
    one record keep each run's commit; the table lists all of them once."""
    record = {
        "kind": "comparison",
        "commands": [{"argv": ["keras-rda", "compare", "t"], "env": {}}],
        "git": {"commit": "aaaa111"},
        "runs": [
            {"settings": {"seed": 0}, "git": {"commit": "aaaa111"}},
            {"settings": {"seed": 1}, "git": {"commit": "bbbb222"}},
            {"settings": {"seed": 2}, "git": {"commit": "bbbb222"}},
        ],
    }
    _, commits, seeds = claims.provenance(record)
    assert commits == ["aaaa111", "bbbb222"]
    assert seeds == [0, 1, 2]


def test_up_to_reads_runs_as_if_they_had_stopped_at_that_step(tmp_path):
    """A reading with `up_to` compares runs of different lengths after the
    same training: the final score, the best, the largest fall and the
    threshold step are those of the curve up to that step."""

    def run(seed, scores):
        curve = [
            {"step": 250 * (i + 1), "val_accuracy": a, "val_loss": 1.0 - a}
            for i, a in enumerate(scores)
        ]
        return {
            "model": "rda",
            "steps": curve[-1]["step"],
            "steps_to_threshold": 500,
            "final": {"accuracy": scores[-1], "loss": 1.0 - scores[-1]},
            "curve": curve,
            "settings": {"seed": seed},
        }

    record = {
        "kind": "comparison",
        "metric": "accuracy",
        "runs": [
            run(0, [0.2, 0.5, 0.6, 0.1, 0.7]),  # falls 0.5 after step 750
            run(1, [0.3, 0.4, 0.45]),
        ],
    }
    (tmp_path / "r.json").write_text(json.dumps(record))

    def value(kind, up_to, **more):
        reading = {
            "label": "x",
            "record": "r",
            "model": "rda",
            "value": kind,
            "aggregate": "max",
            **more,
        }
        if up_to is not None:
            reading["up_to"] = up_to
        return claims.read(reading, tmp_path).value

    assert value("final", None).low == 0.7
    assert value("final", 750).low == 0.6  # seed 0 at 750 (0.6) > seed 1 (0.45)
    assert value("final", 600).low == 0.5  # the last evaluation before 600
    assert value("final", 750, metric="loss").low == pytest.approx(0.55)  # seed 1
    assert value("largest_drop", None).low == pytest.approx(0.5)
    assert value("largest_drop", 750).low == 0.0  # rising curves fall by 0
    assert value("best", 500).low == 0.5
    assert value("steps_run", 600).low == 600
    assert value("steps_to_threshold", 250).high == math.inf  # met later
    assert value("steps_to_threshold", 600).low == 500
    with pytest.raises(ValueError, match="up_to: a run of 'rda' in 'r' has no eval"):
        value("final", 100)


def test_a_missing_record_run_or_row_is_an_error():
    reading = {"label": "x", "record": "nowhere", "model": "rda", "value": "final"}
    with pytest.raises(FileNotFoundError, match="no record"):
        claims.read(reading, RESULTS)
    reading["record"] = "rda_paper/multicopy-compare"
    reading["model"] = "transformer"
    with pytest.raises(ValueError, match="no run of model"):
        claims.read(reading, RESULTS)
    row = {
        "label": "x",
        "record": "uw_paper/ag_news",
        "value": "row",
        "where": {"model": "gpt"},
        "column": "test accuracy (%)",
    }
    with pytest.raises(ValueError, match="0 rows"):
        claims.read(row, RESULTS)


# --- The pages ------------------------------------------------------------


def _markers(text):
    return [m.group("name") for m in report.MARKER.finditer(text)]


@pytest.mark.parametrize("paper", PAPERS)
def test_a_paper_page_opens_with_its_verdict_table(paper):
    text = (REPO_ROOT / "docs" / "papers" / f"{paper}.md").read_text()
    assert _markers(text)[0] == f"claims/{paper}"
    # Nothing but the title and an introduction before it.
    before = text.split("<!-- keras-rda report:")[0]
    assert before.count("\n## ") <= 1


@pytest.mark.parametrize("paper", PAPERS)
def test_the_pages_show_the_command_of_every_record_a_verdict_reads(paper):
    """Every record behind a verdict table has its own block, which prints
    the record's command, on the paper's page or on another one it links
    (a paper page or the benchmarks page)."""
    page = (REPO_ROOT / "docs" / "papers" / f"{paper}.md").read_text()
    elsewhere = {}
    for other in PAGES:
        for name in _markers(other.read_text()):
            elsewhere.setdefault(name, other)
    data = _claims(RESULTS / "claims" / f"{paper}.json")
    missing = []
    for name in claims.record_names(data):
        if name in _markers(page):
            continue
        other = elsewhere.get(name)
        link = None if other is None else other.name
        if other is None or f"{link}" not in page:
            missing.append(name)
    assert not missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_record_a_page_shows_has_command_commit_and_seed(page):
    missing = []
    for name in _markers(page.read_text()):
        record = records.load(RESULTS, name)
        if record["kind"] == "claims":
            continue
        command, commits, seeds = claims.provenance(record)
        if not command or not commits:
            missing.append(name)
        if not seeds and not claims.is_timing_record(record):
            missing.append(f"{name}: seed")
    assert not missing


# A date, a commit hash, or the words of a lab notebook.
NARRATIVE = re.compile(
    r"\b20\d\d-\d\d-\d\d\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"
    r"|not kept|this (morning|afternoon|evening)|per-process|\bsession\b|\bCI\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_pages_carry_no_dated_narrative(page):
    """Outside the generated blocks (whose commits are the records' own
    fields), a page has no dates, commit hashes or notebook phrases."""
    prose = report.MARKER.sub("", page.read_text())
    found = [m.group(0) for m in NARRATIVE.finditer(prose)]
    assert not found


def test_report_rebuilds_a_verdict_table_from_the_records(tmp_path):
    """`keras-rda report` renders a claims block on a page under docs/papers/
    from the record it reads; `--check` catches a hand edit."""
    root = tmp_path / "repo"
    (root / "docs" / "papers").mkdir(parents=True)
    (root / "results" / "claims").mkdir(parents=True)
    run = {
        "model": "rda",
        "steps": 400,
        "steps_to_threshold": None,
        "final": {"accuracy": 0.9},
        "curve": [{"step": 400, "val_accuracy": 0.9}],
        "settings": {"seed": 3},
    }
    record = {
        "kind": "comparison",
        "commands": [{"argv": ["keras-rda", "compare", "multicopy"], "env": {}}],
        "git": {"commit": "0123456789abcdef"},
        "metric": "accuracy",
        "runs": [run],
    }
    (root / "results" / "multicopy-compare.json").write_text(json.dumps(record))
    claim = {
        "id": "x",
        "claim": "The RDA learns multicopy",
        "source": "section 6.4",
        "paper": "1,316 steps",
        "setting": "small",
        "ours": [
            {
                "label": "RDA",
                "record": "multicopy-compare",
                "model": "rda",
                "value": "steps_to_threshold",
            }
        ],
        "direction": [{"left": "RDA", "op": "met"}],
        "verdict": "not reproduced",
        "cause": "",
    }
    (root / "results" / "claims" / "rda.json").write_text(
        json.dumps({"kind": "claims", "paper": "RDA", "claims": [claim]})
    )
    (root / "README.md").write_text("# x\n")
    page = root / "docs" / "papers" / "rda.md"
    page.write_text(
        "# RDA\n<!-- keras-rda report: claims/rda -->\n<!-- /keras-rda report -->\n"
    )
    assert main(["report", "--root", str(root)]) == 0
    text = page.read_text()
    assert "| RDA: > 400 |" in text and "**not reproduced**" in text
    assert "| `results/multicopy-compare.json` | 0123456 | 3 |" in text
    assert (
        "0 reproduced, 0 direction only, 0 inconclusive (budget), 1 not "
        "reproduced, 0 not run" in text
    )
    # The note says what the run took, read from the record.
    assert "*Ran:* 400 steps, seed 3, time not recorded (1 run)." in text
    assert main(["report", "--root", str(root), "--check"]) == 0
    page.write_text(text.replace("> 400", "400"))
    assert main(["report", "--root", str(root), "--check"]) == 1


def _commands(text):
    """The command lines of a page's bash blocks (continuations joined, loops
    and comments left out)."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
        block = re.sub(r"\\\n\s*", " ", block)
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith(("#", "for ", "done", "do ")):
                lines.append(line)
    return lines


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_commands_on_a_page_parse(page):
    """Every `keras-rda` command of a page is one the command line accepts,
    and every script or module it runs exists."""
    import importlib.util
    import shlex

    from keras_rda.lab.cli.command import build_parser

    parser = build_parser()
    commands = _commands(page.read_text())
    assert commands
    for line in commands:
        words = shlex.split(line)
        while re.match(r"^[A-Z_]+=", words[0]):  # KERAS_BACKEND=jax ...
            words.pop(0)
        if words[0] == "keras-rda":
            try:
                parser.parse_args(words[1:])
            except SystemExit:
                pytest.fail(f"{page.name}: `{line}` does not parse")
        elif words[:2] == ["python", "-m"]:  # a module of the package
            assert importlib.util.find_spec(words[2]) is not None, line
        elif words[0] == "python":
            assert (REPO_ROOT / words[1]).is_file(), line
        else:
            pytest.fail(f"{page.name}: unexpected command `{line}`")


def test_a_guide_can_show_one_papers_summary(tmp_path):
    """`claims/PAPER:summary` renders that paper's counts and summary line,
    from the record, and names a record without a summary."""
    record = {
        "kind": "claims",
        "title": "X",
        "summary": "A reproduces; B does not.",
        "claims": [
            {"verdict": "reproduced"},
            {"verdict": "not reproduced"},
            {"verdict": "not reproduced"},
        ],
    }
    report.write_json(tmp_path / "claims" / "x.json", record)
    marker = "<!-- keras-rda report: claims/x:summary -->"
    text = f"{marker}\nold\n<!-- /keras-rda report -->\n"
    new, names = report.rebuild_tables(text, tmp_path)
    assert names == ["claims/x:summary"]
    assert new.splitlines()[1] == (
        "**X**, what our runs show (3 claims: 1 reproduced, 0 direction only, "
        "0 inconclusive (budget), 2 not reproduced, 0 not run): A reproduces; "
        "B does not."
    )
    report.write_json(tmp_path / "claims" / "x.json", dict(record, summary=""))
    with pytest.raises(ValueError, match="'X' has no summary"):
        report.rebuild_tables(text, tmp_path)
