"""The code in the README and the guides runs as it is written.

Every ```python block of README.md and docs/guides/*.md is executed, a
page's blocks in order in one namespace (a page reads top to bottom, so a
block may use what an earlier one defined), in a temporary working
directory. A block that needs data or a long run carries a marker on the
line before it,

    <!-- not run: needs enwik8 -->

and is then only compiled. In ```bash blocks every `keras-rda ...` command
is parsed by the command's own parser, so a wrong subcommand or flag fails,
its task and models must be registered, and every `python benchmarks/...`
or `python examples/...` script and `python -m keras_rda...` module named
must exist (on the paper and benchmarks pages too).
"""

import dataclasses
import importlib.util
import pathlib
import re
import shlex
import textwrap

import pytest

from keras_rda.lab.cli import build_parser
from keras_rda.lab.tasks import task_names
from keras_rda.lab.zoo import model_names
from tests.conftest import REPO_ROOT

#: The pages whose code is checked; the guides are the docs' pages of code.
PAGES = [
    REPO_ROOT / "README.md",
    REPO_ROOT / "docs" / "index.md",
    REPO_ROOT / "docs" / "contributing.md",
    *sorted((REPO_ROOT / "docs" / "guides").glob("*.md")),
]

FENCE = re.compile(
    r"^(?P<indent>[ ]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$",
    re.MULTILINE | re.DOTALL,
)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<why>.*?)\s*-->\s*$")


@dataclasses.dataclass
class Block:
    page: pathlib.Path
    line: int
    lang: str
    code: str
    not_run: str | None  # the marker's reason, None for a block that runs

    @property
    def where(self):
        return f"{self.page.relative_to(REPO_ROOT)}:{self.line}"


def blocks(page, lang=None):
    """The fenced code blocks of `page` (of language `lang`), in order."""
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        if lang is not None and match.group("lang") != lang:
            continue
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = NOT_RUN.search(before)
        found.append(
            Block(
                page=page,
                line=text.count("\n", 0, match.start()) + 1,
                lang=match.group("lang"),
                code=textwrap.dedent(match.group("body")),
                not_run=marker.group("why") if marker else None,
            )
        )
    return found


def _ids(pages):
    return [p.relative_to(REPO_ROOT).as_posix() for p in pages]


PYTHON_PAGES = [p for p in PAGES if p.is_file() and blocks(p, "python")]
BASH_PAGES = [p for p in PAGES if p.is_file() and blocks(p, "bash")]


def test_the_readme_and_the_guides_have_code():
    assert REPO_ROOT / "README.md" in PYTHON_PAGES
    assert len(PYTHON_PAGES) >= 8, _ids(PYTHON_PAGES)


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=_ids(PYTHON_PAGES))
def test_not_run_blocks_say_why(page):
    for block in blocks(page, "python"):
        assert block.not_run is None or block.not_run, f"{block.where}: no reason"


@pytest.mark.tensorflow_only(
    reason="the examples are written for the default backend and export SavedModels"
)
@pytest.mark.parametrize("page", PYTHON_PAGES, ids=_ids(PYTHON_PAGES))
def test_python_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for block in blocks(page, "python"):
        code = compile(block.code, block.where, "exec")
        if block.not_run is None:
            exec(code, namespace)  # noqa: S102  (the page's own example)


def keras_rda_commands(code):
    """`(command, argv)` of every `keras-rda` command in a shell block, with
    continuation lines joined, comments dropped, commands chained with `&&`,
    `;` or a pipe taken one by one, and `VAR=value` prefixes (e.g.
    `KERAS_BACKEND=jax`) skipped."""
    joined = re.sub(r"\\\n", " ", code)
    for line in joined.splitlines():
        line = line.split(" #", 1)[0] if not line.lstrip().startswith("#") else ""
        for command in re.split(
            r"&&|\|\||;|\|", line
        ):  # `pip install . && keras-rda ...`
            words = shlex.split(command, comments=True)
            while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
                words = words[1:]
            if words and words[0] == "keras-rda":
                yield command.strip(), words[1:]


def scripts(code):
    """The repository scripts (`python benchmarks/...`, `python examples/...`)
    a shell block runs."""
    return re.findall(r"python (?:-m \S+ )?((?:benchmarks|examples)/\S+\.py)", code)


def modules(code):
    """The package's modules a shell block runs (`python -m keras_rda...`)."""
    return re.findall(r"python -m (keras_rda(?:\.\w+)*)", code)


@pytest.mark.parametrize("page", BASH_PAGES, ids=_ids(BASH_PAGES))
def test_bash_blocks_use_existing_commands_and_flags(page, capsys):
    parser = build_parser()
    for block in blocks(page, "bash"):
        for line, argv in keras_rda_commands(block.code):
            try:
                args = parser.parse_args(argv)
            except SystemExit as error:
                if error.code not in (0, None):  # `--help` exits with 0
                    message = capsys.readouterr().err.strip().splitlines()[-1:]
                    pytest.fail(f"{block.where}: `{line}`: {message}")
                continue
            # The parser takes any word as a task or model; the registries
            # know which exist.
            if getattr(args, "task", None) is not None:
                assert args.task in task_names(), f"{block.where}: `{line}`"
            models = getattr(args, "models", None) or getattr(args, "model", None)
            if models and args.command in ("train", "compare"):
                for model in models.split(","):
                    assert model in model_names(), f"{block.where}: `{line}`"


#: Pages whose shell blocks rerun records: their scripts and modules exist.
RECORD_PAGES = [
    *sorted((REPO_ROOT / "docs" / "papers").glob("*.md")),
    REPO_ROOT / "docs" / "benchmarks.md",
]


@pytest.mark.parametrize(
    "page", BASH_PAGES + RECORD_PAGES, ids=_ids(BASH_PAGES + RECORD_PAGES)
)
def test_the_scripts_and_modules_a_page_runs_exist(page):
    for block in blocks(page, "bash"):
        for script in scripts(block.code):
            assert (REPO_ROOT / script).is_file(), f"{block.where}: no {script}"
        for module in modules(block.code):
            found = importlib.util.find_spec(module)
            assert found is not None, f"{block.where}: no module {module}"


def test_the_readme_runs_cis_test_command():
    """The README's test command is `.ci/run`'s last line, verbatim."""
    ci = (REPO_ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    readme = [b.code for b in blocks(REPO_ROOT / "README.md", "bash")]
    assert any(ci in code.splitlines() for code in readme), ci
