"""The provenance block every record under results/ carries."""

import json

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
