"""The documentation: an API page per public module, and a strict build.

`mkdocs build --strict` fails on any warning: a broken link, a page missing
from the navigation, or a docstring that mkdocstrings cannot parse.
"""

import pathlib
import pkgutil
import shutil
import subprocess

import pytest
import yaml

import keras_rda

REPO = pathlib.Path(__file__).resolve().parents[1]
INTERNAL = {"utils"}  # keras_rda.utils: validation helpers, not user-facing


def public_subpackages():
    return sorted(
        info.name
        for info in pkgutil.iter_modules(keras_rda.__path__)
        if info.ispkg and info.name not in INTERNAL
    )


def api_pages():
    """`{module: page}` from the `::: module` lines of docs/api/*.md."""
    pages = {}
    for page in (REPO / "docs" / "api").glob("*.md"):
        for line in page.read_text().splitlines():
            if line.startswith("::: "):
                pages[line[4:].strip()] = page.relative_to(REPO / "docs").as_posix()
    return pages


def nav_pages(nav):
    for entry in nav:
        for value in entry.values():
            if isinstance(value, list):
                yield from nav_pages(value)
            else:
                yield value


def test_every_public_module_has_a_page_in_the_nav():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    pages = api_pages()
    nav = set(nav_pages(config["nav"]))
    for module in ["keras_rda"] + [f"keras_rda.{m}" for m in public_subpackages()]:
        assert module in pages, f"no docs/api page documents {module}"
        assert pages[module] in nav, f"{pages[module]} is not in mkdocs.yml's nav"


def test_mkdocs_build_strict(tmp_path):
    import mkdocstrings  # noqa: F401  (the [test] extra installs it)

    mkdocs = shutil.which("mkdocs") or pytest.fail("mkdocs is not installed")
    result = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    html = (tmp_path / "site" / "api" / "layers" / "index.html").read_text()
    assert "RDA" in html and "FeedForwardAttention" in html
