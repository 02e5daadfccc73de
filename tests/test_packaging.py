"""Packaging: the wheel and sdist build, pass `twine check`, and the wheel works.

One module-scoped build (`python -m build --no-isolation`, so that nothing
is downloaded), from a copy of the checkout, feeds every test. The wheel is
installed into a fresh virtual environment that reuses this environment's
dependencies through a `.pth` file instead of downloading TensorFlow again;
`keras-rda tasks` then runs from that environment's own entry point, with
`PYTHONPATH` cleared, outside the repository, so that only the installed
wheel can be imported.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile

import build  # noqa: F401  (the [test] extra installs it: fail, not skip)
import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = REPO / "keras_rda"


def _clean_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


_NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    ".tox",
    "site",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
)


def _not_sources(directory, names):
    """What the copy of the checkout leaves out: caches, builds, and the
    command line's default output folder `runs/` at the top only (not the
    package `keras_rda/lab/runs/`)."""
    ignored = set(_NOT_SOURCES(directory, names))
    if pathlib.Path(directory) == REPO and "runs" in names:
        ignored.add("runs")
    return ignored


def test_version_is_the_changelog_top_entry():
    """`keras_rda.__version__` (the wheel's version) is the version in
    CHANGELOG.md's first entry: "## 0.2.0" or "## Unreleased (0.2.0)"."""
    from keras_rda import __version__

    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    heading = next(s for s in changelog.splitlines() if s.startswith("## "))
    match = re.search(r"\d+(\.\d+)+", heading)
    assert match, f"no version in the top entry {heading!r}"
    assert __version__ == match.group(0), heading


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    # Built from a copy of the checkout, so that nothing is written into it
    # and two xdist workers never build in the same directory.
    source = tmp_path_factory.mktemp("source") / "keras_rda"
    shutil.copytree(REPO, source, ignore=_not_sources)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out)],
        cwd=source,
        check=True,
        capture_output=True,
        env=_clean_env(),
    )
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def _runtime_files():
    """Files under keras_rda/ the package needs: everything but caches."""
    return sorted(
        p.relative_to(REPO).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )


def test_build_makes_a_wheel_and_an_sdist(dist):
    wheel, sdist = dist
    assert wheel.name.startswith("keras_rda-") and wheel.name.endswith(
        "-py3-none-any.whl"
    )
    assert sdist.name.startswith("keras_rda-")


def test_twine_check_passes(dist):
    import twine  # noqa: F401

    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, dist)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_wheel_ships_the_package_files_and_no_test_data(dist):
    wheel, _ = dist
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in _runtime_files() if f not in names]
    assert not missing, f"files of keras_rda/ missing from the wheel: {missing}"
    # The console script's module, which parses before keras_rda imports Keras.
    entry = "_keras_rda_cli.py"
    outside = [
        n
        for n in names
        if not n.startswith(("keras_rda/", "keras_rda-")) and n != entry
    ]
    assert not outside, f"the wheel ships files outside the package: {outside}"
    data = ("enwik6", "mnist_5k.csv.gz", "ag_news_test.csv", "imdb_labelled.txt")
    assert not [n for n in names if n.rsplit("/", 1)[-1] in data]


def test_sdist_has_the_sources_and_no_data(dist):
    _, sdist = dist
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"setup.py", "pyproject.toml", "README.md", "LICENSE"} <= names
    assert set(_runtime_files()) | {"_keras_rda_cli.py"} <= names
    data = ("enwik6", "mnist_5k.csv.gz", "ag_news_test.csv", "imdb_labelled.txt")
    assert not [n for n in names if n.rsplit("/", 1)[-1] in data]


def test_installed_wheel_runs_keras_rda_tasks(dist, tmp_path):
    wheel, _ = dist
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [
            str(python),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # This environment's dependencies (TensorFlow, Keras, ...), after the
    # fresh environment's own site-packages; an editable keras_rda here is
    # not activated (.pth files of a path added this way are not run).
    pathlib.Path(site, "reuse_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--force-reinstall",
            "--quiet",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        env=_clean_env(),
    )
    env = _clean_env()
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    where = subprocess.run(
        [str(python), "-c", "import keras_rda; print(keras_rda.__file__)"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert pathlib.Path(where).is_relative_to(env_dir), where
    result = subprocess.run(
        [str(env_dir / "bin" / "keras-rda"), "tasks"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    from keras_rda.lab.tasks import task_names

    for name in task_names():
        assert name in result.stdout
    # Its records name the commit of the clone the run starts in (the
    # package's own files are in site-packages, outside any checkout). A
    # script, not `-c`: `-c` would put the checkout's keras_rda first.
    script = tmp_path / "commit.py"
    script.write_text(
        "from keras_rda.lab.reporting import provenance\n"
        "print(provenance.PACKAGE_ROOT, provenance.git_commit()['commit'])\n"
    )
    root, commit = subprocess.run(
        [str(python), str(script)],
        cwd=REPO / "docs",
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert pathlib.Path(root).is_relative_to(env_dir), root
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    assert commit == head
