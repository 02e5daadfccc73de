"""Statements of the README and the guides that a test can hold.

- The options table of docs/guides/command-line.md lists every option of
  `keras-rda train` and `compare`.
- The README's Install section and the getting-started guide name every
  extra of setup.py.
- The docs' home page links every guide.
"""

import ast
import re

from keras_rda.lab.cli import build_parser
from tests.conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"


def subcommand(name):
    parser = build_parser()
    (choices,) = [a.choices for a in parser._actions if getattr(a, "choices", None)]
    return choices[name]


def option_strings(parser):
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--")}


def test_the_options_table_lists_every_option_of_train_and_compare():
    text = (DOCS / "guides" / "command-line.md").read_text()
    table = text.split("The options of `train` and `compare`:", 1)[1].split("\n\n")[1]
    documented = set(
        re.findall(
            r"--[a-z][a-z-]*",
            " ".join(
                row.split("|")[1] for row in table.splitlines() if row.startswith("| `")
            ),
        )
    )
    options = option_strings(subcommand("train")) | option_strings(
        subcommand("compare")
    )
    # `--model` / `--models` are in the subcommand table above it.
    expected = options - {"--help", "--model", "--models"}
    assert expected - documented == set(), sorted(expected - documented)
    assert documented - options == set(), sorted(documented - options)


def extras():
    """The keys of setup.py's `extras_require`."""
    tree = ast.parse((REPO_ROOT / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "extras_require":
            return {key.value for key in node.value.keys}
    raise AssertionError("setup.py has no extras_require")


def test_the_readme_and_getting_started_name_every_extra():
    readme = (REPO_ROOT / "README.md").read_text()
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    guide = (DOCS / "guides" / "getting-started.md").read_text()
    assert extras() >= {"lab", "jax", "torch", "export", "docs", "test"}
    for extra in extras():
        assert f"`{extra}`" in install, f"README's Install section lacks `{extra}`"
        assert f"| `{extra}` |" in guide, f"getting-started's table lacks `{extra}`"


def test_pages_install_from_a_clone_not_from_an_unpublished_name():
    pages = [REPO_ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    for page in pages:
        found = re.findall(r"pip install [^\n`]*keras_rda\[", page.read_text())
        assert not found, f"{page.relative_to(REPO_ROOT)}: {found}"


def test_the_home_page_links_every_guide():
    index = (DOCS / "index.md").read_text()
    for guide in sorted((DOCS / "guides").glob("*.md")):
        assert f"(guides/{guide.name})" in index, f"docs/index.md lacks {guide.name}"
