"""The documentation: its structure, its links, its tone, and a strict build.

- Every public module has an API page, and every page is in the navigation.
- `mkdocs build --strict` fails on any warning: a broken link, a page
  missing from the navigation, or a docstring that mkdocstrings cannot
  parse.
- The README links only to files that exist, stays within 250 lines, and
  the changelog page is `CHANGELOG.md` itself.
- The user's pages (README, the home page, the guides, the paper pages,
  the benchmarks) carry no lab notebook: no dates, no commit hashes in
  prose, no "tried and not kept". Generated tables are exempt: they render
  records, whose commands may name anything.

The code blocks of the README and the guides are run by
`tests/test_doc_examples.py`.
"""

import json
import os
import pathlib
import pkgutil
import re
import shutil
import subprocess

import pytest
import yaml

import keras_rda
import keras_rda.lab
from keras_rda.lab.reporting.report import MARKER

REPO = pathlib.Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
INTERNAL = {"utils"}  # keras_rda.utils: validation helpers, not user-facing


def public_modules():
    """`keras_rda`, its public subpackages and the lab's."""
    modules = ["keras_rda"]
    for package, prefix in ((keras_rda, "keras_rda"), (keras_rda.lab, "keras_rda.lab")):
        modules += [
            f"{prefix}.{info.name}"
            for info in pkgutil.iter_modules(package.__path__)
            if info.ispkg and info.name not in INTERNAL
        ]
    return sorted(modules)


def api_pages():
    """`{module: page}` from the `::: module` lines of docs/api/**/*.md."""
    pages = {}
    for page in (DOCS / "api").rglob("*.md"):
        for line in page.read_text().splitlines():
            if line.startswith("::: "):
                pages[line[4:].strip()] = page.relative_to(DOCS).as_posix()
    return pages


def nav_pages(nav):
    for entry in nav:
        for value in entry.values():
            if isinstance(value, list):
                yield from nav_pages(value)
            else:
                yield value


def config():
    # mkdocs.yml may hold Python tags (none today); the nav is plain YAML.
    return yaml.safe_load((REPO / "mkdocs.yml").read_text())


def test_every_public_module_has_a_page_in_the_nav():
    pages = api_pages()
    nav = set(nav_pages(config()["nav"]))
    for module in public_modules():
        assert module in pages, f"no docs/api page documents {module}"
        assert pages[module] in nav, f"{pages[module]} is not in mkdocs.yml's nav"


def test_the_nav_holds_the_guides_papers_and_benchmarks():
    nav = set(nav_pages(config()["nav"]))
    guides = {p.relative_to(DOCS).as_posix() for p in (DOCS / "guides").glob("*.md")}
    assert guides and guides <= nav, sorted(guides - nav)
    papers = {f"papers/{name}.md" for name in ("rda", "rwa", "uw", "weinet", "ffa")}
    assert papers | {"benchmarks.md", "contributing.md", "changelog.md"} <= nav


def test_the_changelog_page_is_the_changelog():
    assert (DOCS / "changelog.md").read_text().strip() == '--8<-- "CHANGELOG.md"'


def test_readme_is_short():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 250, len(lines)


def test_guides_are_pages_read_top_to_bottom():
    for guide in (DOCS / "guides").glob("*.md"):
        lines = guide.read_text().splitlines()
        assert len(lines) <= 300, f"{guide.name}: {len(lines)} lines"
        assert lines[0].startswith("# "), f"{guide.name} has no title"


LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def test_readme_links_resolve():
    readme = (REPO / "README.md").read_text()
    for match in LINK.finditer(readme):
        target = match.group("target").split("#")[0]
        if not target or re.match(r"[a-z]+:", target):
            continue  # an anchor, or a URL
        assert (REPO / target).exists(), f"README links to missing {target}"


def test_each_notebook_names_the_guide_it_illustrates():
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        top = "".join(
            "".join(cell["source"])
            for cell in cells[:2]
            if cell["cell_type"] == "markdown"
        )
        # A local notebook links relative to the repository; the Colab one,
        # opened from an uploaded zip where no relative link resolves, names
        # the guide's path in the unzipped copy.
        guides = re.findall(r"\]\(\.\./docs/(guides/[\w-]+\.md)\)", top)
        guides += re.findall(r"`docs/(guides/[\w-]+\.md)`", top)
        assert guides, f"{notebook.name} names no guide near its top"
        for guide in guides:
            assert (DOCS / guide).is_file(), f"{notebook.name} links to missing {guide}"
        if "colab" in notebook.name:
            text = "".join("".join(cell["source"]) for cell in cells)
            assert "](../" not in text, f"{notebook.name} has a relative link"
            assert "<the repository" not in text, f"{notebook.name} has a placeholder"


# --- No lab notebook in the user's path ------------------------------------

USER_PAGES = [
    REPO / "README.md",
    DOCS / "index.md",
    DOCS / "contributing.md",
    *sorted((DOCS / "guides").glob("*.md")),
    *sorted((DOCS / "papers").glob("*.md")),
    DOCS / "benchmarks.md",
]

NARRATIVE = {
    "a date": re.compile(r"\b20\d\d-\d\d-\d\d\b"),
    "'tried and not kept'": re.compile(r"\b(tried|timed) and not kept\b", re.I),
    "a time of day": re.compile(r"\bthis (morning|afternoon|evening)\b", re.I),
    "a CI timing": re.compile(r"\bgreen in \d+ ?min", re.I),
}
# A commit hash: 7 to 40 hex digits with a digit and a letter, on its own
# (not part of a path, a URL, a number or a word).
HASH = re.compile(
    r"(?<![\w/.#-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])"
)


def prose(text):
    """`text` without its generated tables (between report markers)."""
    return MARKER.sub("", text)


def narrative(text):
    """`[(what, excerpt)]` of the lab-notebook phrases in `text`."""
    text = prose(text)
    found = []
    for what, pattern in [*NARRATIVE.items(), ("a commit hash", HASH)]:
        for match in pattern.finditer(text):
            start = max(match.start() - 40, 0)
            found.append((what, text[start : match.end() + 40].replace("\n", " ")))
    return found


def test_narrative_check_catches_what_it_should():
    assert narrative("rerun at e36c0fa after the fix")
    assert narrative("(the default until 2026-11-27)")
    assert narrative("tried and not kept: unrolling")
    assert narrative("the machine ran slower this afternoon")
    assert not narrative("see `results/uw_paper/uw-copy-compare.json`, 250 units")
    assert not narrative("decade faced added 1234567 deadbeef")
    table = "<!-- keras-rda report: x -->\nat e36c0fa\n<!-- /keras-rda report -->\n"
    assert not narrative(table)


@pytest.mark.parametrize(
    "page",
    [p for p in USER_PAGES if p.is_file()],
    ids=lambda p: p.relative_to(REPO).as_posix(),
)
def test_no_lab_notebook_in_the_users_path(page):
    found = narrative(page.read_text())
    assert not found, "\n".join(f"{what}: ...{excerpt}..." for what, excerpt in found)


# --- The build --------------------------------------------------------------


def test_mkdocs_build_strict(tmp_path):
    import mkdocstrings  # noqa: F401  (the [test] extra installs it)

    mkdocs = shutil.which("mkdocs") or pytest.fail("mkdocs is not installed")
    result = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    site = tmp_path / "site"
    html = (site / "api" / "layers" / "index.html").read_text()
    assert "RDA" in html and "FeedForwardAttention" in html
    changelog = (site / "changelog" / "index.html").read_text()
    first_heading = (REPO / "CHANGELOG.md").read_text().split("\n## ")[1].split("\n")[0]
    assert first_heading.split(" (")[0] in changelog
    assert (site / "guides" / "getting-started" / "index.html").is_file()
