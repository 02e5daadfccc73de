"""The provenance block every record under results/ carries."""

import importlib.machinery
import json
import sys
import types

import keras

from keras_rda.lab.reporting import provenance


def test_record_fields_are_json_and_name_the_backend():
    record = provenance.provenance()
    json.dumps(record)
    assert record["versions"]["backend"] == keras.backend.backend()
    assert record["versions"]["keras"] == keras.__version__
    assert record["machine"]["cpu_count"] >= 1
    assert isinstance(record["machine"]["accelerators"], list)


def test_commit_outside_a_checkout_comes_from_the_environment(tmp_path, monkeypatch):
    """A copy of the tree on another machine (no .git) still names its commit."""
    monkeypatch.delenv("KERAS_RDA_GIT_COMMIT", raising=False)
    assert provenance.git_commit(tmp_path) == {"commit": None, "dirty": None}
    monkeypatch.setenv("KERAS_RDA_GIT_COMMIT", "abc123")
    assert provenance.git_commit(tmp_path) == {"commit": "abc123", "dirty": None}


def test_commit_inside_this_checkout_is_a_sha():
    """The tests run from a checkout (CI clones the repository)."""
    commit = provenance.git_commit()
    assert len(commit["commit"]) == 40
    int(commit["commit"], 16)
    assert isinstance(commit["dirty"], bool)


def test_a_rewritten_record_does_not_make_the_checkout_dirty(tmp_path):
    """Records under results/ are outputs: rewriting one leaves `dirty`
    False; changing any other tracked file makes it True."""
    import subprocess

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "run.json").write_text("{}\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    assert provenance.git_commit(tmp_path)["dirty"] is False
    (tmp_path / "results" / "run.json").write_text('{"runs": []}\n')
    assert provenance.git_commit(tmp_path)["dirty"] is False
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.git_commit(tmp_path)["dirty"] is True


def _checkout(path, files):
    """A git checkout at `path` with `files` committed; its HEAD."""
    import subprocess

    def git(*args):
        return subprocess.run(
            ["git", *args], cwd=path, check=True, capture_output=True, text=True
        ).stdout.strip()

    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    return git("rev-parse", "HEAD")


def test_an_installed_package_takes_the_commit_of_the_clone_it_runs_in(
    tmp_path, monkeypatch
):
    """After `pip install ".[lab]"` (not editable) the package's files are
    in site-packages, outside any checkout; a run started inside the clone
    records the clone's commit, not null."""
    monkeypatch.delenv("KERAS_RDA_GIT_COMMIT", raising=False)
    site = tmp_path / "site-packages"
    (site / "keras_rda").mkdir(parents=True)
    monkeypatch.setattr(provenance, "PACKAGE_ROOT", site)
    clone = tmp_path / "clone"
    clone.mkdir()
    head = _checkout(clone, {"keras_rda/__init__.py": "", "README.md": "x\n"})
    (clone / "runs").mkdir()
    monkeypatch.chdir(clone / "runs")
    assert provenance.git_commit() == {"commit": head, "dirty": False}
    (clone / "README.md").write_text("y\n")
    assert provenance.git_commit() == {"commit": head, "dirty": True}


def test_a_working_directory_in_another_repository_gives_no_commit(
    tmp_path, monkeypatch
):
    """The working directory's repository counts only where it is a
    checkout of keras_rda; a user's own project's commit is not the
    package's."""
    monkeypatch.delenv("KERAS_RDA_GIT_COMMIT", raising=False)
    monkeypatch.setattr(provenance, "PACKAGE_ROOT", tmp_path / "site-packages")
    (tmp_path / "site-packages").mkdir()
    project = tmp_path / "project"
    project.mkdir()
    _checkout(project, {"train.py": "x = 1\n"})
    monkeypatch.chdir(project)
    assert provenance.git_commit() == {"commit": None, "dirty": None}


def test_a_wheel_installed_inside_the_clone_is_not_the_checkout(tmp_path, monkeypatch):
    """A virtual environment inside the clone holds copies of the package
    (git ignores them): run from elsewhere, its commit is unknown, not
    the clone's; run from inside the clone, it is the clone's."""
    monkeypatch.delenv("KERAS_RDA_GIT_COMMIT", raising=False)
    clone = tmp_path / "clone"
    clone.mkdir()
    head = _checkout(clone, {"keras_rda/__init__.py": "", ".gitignore": ".venv/\n"})
    site = clone / ".venv" / "site-packages"
    (site / "keras_rda").mkdir(parents=True)
    monkeypatch.setattr(provenance, "PACKAGE_ROOT", site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert provenance.git_commit()["commit"] is None
    monkeypatch.chdir(clone)
    assert provenance.git_commit()["commit"] == head


def test_a_module_run_with_dash_m_records_its_python_dash_m_command(monkeypatch):
    """`python -m keras_rda.lab.diagnostics.NAME ...` records that command,
    which reruns from any checkout; a script records its path."""
    name = "keras_rda.lab.diagnostics.uw_metric_baselines"
    main = types.ModuleType("__main__")
    main.__spec__ = importlib.machinery.ModuleSpec(name, None)
    monkeypatch.setitem(sys.modules, "__main__", main)
    backend = keras.backend.backend()
    env = {"KERAS_BACKEND": backend}
    assert provenance.script_command(["--json", "a b.json"]) == {
        "argv": ["python", "-m", name, "--json", "a b.json"],
        "env": env,
    }
    main.__spec__ = None
    monkeypatch.setattr(sys, "argv", [str(provenance.PACKAGE_ROOT / "x" / "s.py")])
    assert provenance.script_command([]) == {"argv": ["python", "x/s.py"], "env": env}
