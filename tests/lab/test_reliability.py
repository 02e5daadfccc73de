"""The lab's reliability probes (issue 58), one case each, so that none
comes back: what a user meets when a flag is wrong, a file is damaged, two
runs share a folder, a write is cut short, a loss turns NaN, or they only
ask for `--help`.

- A bad flag: exit status 2 and one line on stderr naming the flag and the
  value; nothing is written.
- A damaged or missing checkpoint file: exit status 2 and one line naming
  the file and `--restart`; `--restart` then runs.
- One run per output folder: a second run into a held `--out` exits 2.
- Atomic writes: every writer of the lab goes through `keras_rda.lab.files`,
  and a write that fails leaves the old file and nothing else.
- A non-finite loss stops the run with one line, recorded as diverged.
- `--help`, `tasks`, `models` and a flag's error import no backend.
"""

import ast
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from keras_rda.lab import files
from keras_rda.lab.cli import main
from tests.conftest import REPO_ROOT

TINY = ["--batch-size", "4", "--units", "3", "--eval-examples", "6"]
TINY += ["--verbose", "0"]
TRAIN = ["train", "reber", "--model", "gru", "--steps", "6", "--eval-every", "2"]
TRAIN += TINY
LAB = REPO_ROOT / "keras_rda" / "lab"


def one_line_error(capsys):
    """stderr of the command just run, checked to be one `keras-rda` line."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("keras-rda") and "error:" in err, err
    assert "Traceback" not in err
    return err


def enwik8_text(path):
    """A small file that passes the enwik8 checks (its text is made up)."""
    path.write_bytes(b"<mediawiki the cat sat on the mat. " * 200)
    return path


# ------------------------------------------------------------ bad flags

BAD_FLAGS = [
    *(
        (["train", "copy", "--learning-rate", value], "--learning-rate", got)
        for value, got in [("-1", "-1.0"), ("0", "0.0"), ("nan", "nan"), ("inf", "inf")]
    ),
    *(
        (["train", "copy", "--clipvalue", value], "--clipvalue", got)
        for value, got in [("-1", "-1.0"), ("nan", "nan"), ("inf", "inf")]
    ),
    *(
        (["train", "copy", "--clipnorm", value], "--clipnorm", got)
        for value, got in [("0", "0.0"), ("-1", "-1.0"), ("nan", "nan"), ("inf", "inf")]
    ),
    (["train", "copy", "--seed", "-1"], "--seed", "-1"),
    (["compare", "copy", "--seeds", "0,-1"], "--seeds", "-1"),
    (["train", "copy", "--model-arg", "bogus=3"], "--model-arg", "'bogus=3'"),
    (
        ["train", "copy", "--model", "dnc", "--model-arg", "bogus=3"],
        "--model-arg",
        "'bogus=3'",
    ),
    (["train", "copy", "--steps", "0"], "--steps", "0"),
    (["enwik8", "--learning-rate", "-1"], "--learning-rate", "-1.0"),
    (["enwik8", "--learning-rate", "inf"], "--learning-rate", "inf"),
    (["enwik8", "--seed", "-1"], "--seed", "-1"),
]


@pytest.mark.parametrize(
    "argv,flag,got", BAD_FLAGS, ids=[" ".join(case[0]) for case in BAD_FLAGS]
)
def test_a_bad_flag_is_one_line_naming_it(argv, flag, got, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(argv + ["--out", str(out)]) == 2
    err = one_line_error(capsys)
    assert f"`{flag}`" in err and f"got {got}" in err, err
    assert not out.exists()


def test_an_unknown_model_argument_names_the_model_and_what_it_takes(capsys):
    assert main(["train", "copy", "--model", "weinet", "--model-arg", "bogus=3"]) == 2
    err = one_line_error(capsys)
    keywords = "decay_initializer, memory_clip, num_memories, router, units, update"
    assert f"zoo model 'weinet' ({keywords})" in err
    assert main(["train", "copy", "--model-arg", "bogus=3"]) == 2
    err = one_line_error(capsys)
    assert "zoo model 'rda' (" in err
    for name in ("learn_initial_state", "attention_activation", "dropout", "dtype"):
        assert name in err  # the builder's own, the layer's, Keras's
    assert "return_sequences" not in err  # the builder sets it itself


def _unwritable(kind, tmp_path):
    """A folder that cannot be made: one named by a file, one under a file,
    one in /proc (Linux, where even root cannot make folders)."""
    file = tmp_path / "a-file"
    file.write_text("not a folder")
    if kind == "file":
        return file
    if kind == "under-a-file":
        return file / "runs"
    if not pathlib.Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    return pathlib.Path("/proc/keras-rda-test/runs")


@pytest.mark.parametrize("kind", ["file", "under-a-file", "proc"])
@pytest.mark.parametrize("flag", ["--out", "--results-dir", "--tensorboard"])
def test_an_output_folder_that_cannot_be_made(flag, kind, tmp_path, capsys):
    folder = _unwritable(kind, tmp_path)
    out = ["--out", str(tmp_path / "out")] if flag != "--out" else []
    assert main([*TRAIN, flag, str(folder), *out]) == 2
    err = one_line_error(capsys)
    assert f"error: {flag}: cannot write in " in err and str(folder) in err
    assert not list(tmp_path.glob("**/.keras-rda.lock"))


@pytest.mark.tensorflow_only
@pytest.mark.parametrize("kind", ["file", "under-a-file"])
@pytest.mark.parametrize("flag", ["--out", "--results-dir"])
def test_enwik8_folders_that_cannot_be_made(flag, kind, tmp_path, capsys):
    folder = _unwritable(kind, tmp_path)
    data = enwik8_text(tmp_path / "sample.txt")
    argv = ["enwik8", "--data", str(data), "--scale", "tiny", "--verbose", "0"]
    out = ["--out", str(tmp_path / "out")] if flag != "--out" else []
    assert main([*argv, flag, str(folder), *out]) == 2
    err = one_line_error(capsys)
    assert f"error: {flag}: cannot write in " in err and str(folder) in err
    assert not (tmp_path / "out").exists()


@pytest.mark.tensorflow_only
def test_enwik8_checks_its_record_before_it_trains(tmp_path, capsys):
    data = enwik8_text(tmp_path / "sample.txt")
    record = tmp_path / "results" / "enwik8-tiny.json"
    record.parent.mkdir()
    record.write_text('{"kind": "enwik8", "runs": {"gru": {')
    argv = ["enwik8", "--data", str(data), "--scale", "tiny", "--verbose", "0"]
    argv += ["--results-dir", str(record.parent), "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = one_line_error(capsys)
    assert f"error: --results-dir: {record} is damaged: " in err
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------- enwik8 data


def test_enwik8_data_of_a_header_and_random_bytes_is_refused(tmp_path, capsys):
    rng = np.random.default_rng(0)
    data = tmp_path / "enwik8-copy"
    data.write_bytes(b"<mediawiki " + rng.integers(0, 256, 50_000, np.uint8).tobytes())
    assert main(["enwik8", "--data", str(data), "--out", str(tmp_path / "o")]) == 2
    err = one_line_error(capsys)
    assert "--data: " in err and str(data) in err and "not text like enwik8" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("size", [1_000, 600_000, 1_000_000])
def test_real_enwik8_prefixes_still_load(size, data_dir, tmp_path):
    from keras_rda.lab.datasets import enwik8

    raw = (data_dir / "enwik6").read_bytes()
    prefix = tmp_path / f"first-{size}"
    prefix.write_bytes(raw[:size])
    assert len(enwik8(prefix).train) == round(0.9 * size)
    assert len(enwik8(data_dir / "enwik6").train) == 900_000


def test_a_longer_file_must_start_with_the_real_first_million_bytes(data_dir, tmp_path):
    from keras_rda.lab.datasets import enwik8

    raw = bytearray((data_dir / "enwik6").read_bytes())
    longer = tmp_path / "enwik7-prefix"
    longer.write_bytes(bytes(raw) + raw[:2000])
    assert len(enwik8(longer).valid) == round(0.05 * len(raw) + 100)
    raw[700_000] ^= 0x20  # one letter's case
    longer.write_bytes(bytes(raw) + raw[:2000])
    with pytest.raises(ValueError, match="first 1,000,000 bytes .* are not enwik8's"):
        enwik8(longer)


# --------------------------------------------------- damaged checkpoints


def _run_dir(out):
    return out / "checkpoints" / "reber-gru" / "gru-seed0"


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Two `--out` folders of TRAIN: one interrupted after its second
    evaluation (latest.json names ckpt-2), one finished."""
    from keras_rda.lab.runs import run_loop

    root = tmp_path_factory.mktemp("templates")
    assert main([*TRAIN, "--out", str(root / "finished")]) == 0
    original = run_loop.make_recorder

    def interrupted_recorder(*args, **kwargs):
        recorder = original(*args, **kwargs)
        on_epoch_end = recorder.on_epoch_end

        def stop_at_the_third(epoch, logs=None):
            on_epoch_end(epoch, logs)
            if epoch == 2:  # after the second checkpoint: a Ctrl-C
                raise KeyboardInterrupt

        recorder.on_epoch_end = stop_at_the_third
        return recorder

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_loop, "make_recorder", interrupted_recorder)
        assert main([*TRAIN, "--out", str(root / "interrupted")]) == 130
    latest = json.loads((_run_dir(root / "interrupted") / "latest.json").read_text())
    assert latest["weights"] == "ckpt-2.weights.h5"
    return root


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGE = [
    ("interrupted", "latest.json", "truncated"),
    ("interrupted", "latest.json", "deleted"),
    ("interrupted", "ckpt-2.weights.h5", "truncated"),
    ("interrupted", "ckpt-2.weights.h5", "deleted"),
    ("interrupted", "run.json", "truncated"),
    ("interrupted", "run.json", "deleted"),
    ("finished", "result.json", "truncated"),
    ("finished", "result.json", "deleted"),
    ("finished", "final.weights.h5", "truncated"),
    ("finished", "final.weights.h5", "deleted"),
    ("finished", "run.json", "truncated"),
]


# `--restart` discards the run's folder whatever was damaged in it, so one
# damage of each state also reruns with it (a run trains for seconds).
RESTARTED = {DAMAGE[0], DAMAGE[6]}


@pytest.mark.parametrize(
    "state,name,damage", DAMAGE, ids=[" ".join(case) for case in DAMAGE]
)
def test_a_damaged_checkpoint_names_the_file_and_restart(
    state, name, damage, templates, tmp_path, capsys
):
    out = tmp_path / "out"
    shutil.copytree(templates / state, out)
    path = _run_dir(out) / name
    capsys.readouterr()
    if damage == "truncated":
        _truncate(path)
    else:
        path.unlink()
    assert main([*TRAIN, "--out", str(out)]) == 2
    err = one_line_error(capsys)
    assert f"error: {path} is damaged: " in err, err
    assert err.rstrip().endswith(
        "rerun with --restart to discard this run's checkpoints and start over"
    )
    if (state, name, damage) in RESTARTED:
        assert main([*TRAIN, "--out", str(out), "--restart"]) == 0
        record = json.loads((out / "reber-gru.json").read_text())
        assert [c["step"] for c in record["runs"][0]["curve"]] == [2, 4, 6]


def test_leftover_weights_of_a_kill_during_the_first_save_are_ignored(
    templates, tmp_path
):
    """A kill between the first weights file and `latest.json` leaves
    ckpt-1 alone: the run starts over, as it should."""
    out = tmp_path / "out"
    shutil.copytree(templates / "interrupted", out)
    run_dir = _run_dir(out)
    (run_dir / "latest.json").unlink()
    (run_dir / "ckpt-2.weights.h5").rename(run_dir / "ckpt-1.weights.h5")
    assert main([*TRAIN, "--out", str(out)]) == 0


@pytest.mark.tensorflow_only
@pytest.mark.parametrize("damage", ["config.json", "checkpoint index", "weights"])
def test_a_damaged_enwik8_checkpoint_names_the_file_and_restart(
    damage, tmp_path, capsys
):
    data = enwik8_text(tmp_path / "sample.txt")
    out = tmp_path / "out"
    argv = ["enwik8", "--data", str(data), "--scale", "tiny", "--model", "gru"]
    argv += ["--steps", "3", "--checkpoint-every", "1", "--verbose", "0"]
    argv += ["--out", str(out)]
    assert main(argv) == 0
    checkpoints = out / "checkpoints"
    target = {
        "config.json": out / "config.json",
        "checkpoint index": checkpoints / "checkpoint",
        "weights": max(checkpoints.glob("ckpt-*.data-*")),
    }[damage]
    _truncate(target)
    capsys.readouterr()
    assert main([*argv, "--steps", "5"]) == 2
    err = one_line_error(capsys)
    assert " is damaged: " in err and "rerun with --restart" in err
    named = checkpoints if damage != "config.json" else target
    assert str(named) in err
    if damage == "weights":  # --restart discards the folder whatever it held
        assert main([*argv, "--steps", "5", "--restart"]) == 0
        assert json.loads((out / "results.json").read_text())["step"] == 5


def test_a_damaged_record_names_the_file(tmp_path):
    from keras_rda.lab.reporting import report

    record = tmp_path / "enwik8-tiny.json"
    record.write_text('{"kind": "enwik8", "runs": {"gru": {')
    with pytest.raises(files.DamagedFile, match="enwik8-tiny.json is damaged"):
        report.add_enwik8_run(record, {"model": "lstm", "history": []})


# ------------------------------------------------- one run per folder


def test_a_second_run_into_a_held_out_exits_2(tmp_path, capsys):
    out = tmp_path / "out"
    with files.FolderLock(out, owner="keras-rda train reber"):
        assert main([*TRAIN, "--out", str(out)]) == 2
    err = one_line_error(capsys)
    assert f"--out: {out} is in use by another keras-rda run (process " in err
    assert f"{os.getpid()} keras-rda train reber)" in err
    assert not (out / "checkpoints").exists()


def test_the_lock_of_a_killed_run_locks_nothing(tmp_path, capsys):
    """A run killed with SIGKILL leaves its lock file; the system released
    the lock, so the next run goes ahead (and its own lock file goes)."""
    out = tmp_path / "out"
    argv = [*TRAIN, "--steps", "100000", "--out", str(out)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "keras_rda.lab.cli", *argv],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lock = out / files.LOCK_NAME
    try:
        deadline = time.monotonic() + 300
        while not (_run_dir(out) / "run.json").exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        assert main([*TRAIN, "--out", str(out)]) == 2
        assert f"(process {proc.pid} keras-rda train reber" in one_line_error(capsys)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert lock.exists()  # stale: nobody holds it
    assert main([*TRAIN, "--out", str(out), "--restart"]) == 0
    assert not lock.exists()


def test_the_lock_has_one_holder_and_leaves_no_file(tmp_path):
    folder = tmp_path / "out"
    with files.FolderLock(folder):
        with pytest.raises(files.FolderInUse):
            files.FolderLock(folder).__enter__()
    assert not (folder / files.LOCK_NAME).exists()
    with files.FolderLock(folder):
        assert (folder / files.LOCK_NAME).read_text().startswith(str(os.getpid()))


# ------------------------------------------------------- atomic writes

# Calls that write a file; each must write through `keras_rda.lab.files`.
WRITE_METHODS = {"write_text", "write_bytes", "dump", "savez", "savez_compressed"}
# Calls that write to a name they are given: allowed into a `replacing` name.
NAMED_WRITERS = {"savefig", "save_weights", "copyfile", "savez"}
# Appends are not replacements: a line cut by a kill is dropped on reading.
APPENDS = {"keras_rda/lab/enwik8/run_log.py"}


def _writes(path):
    """The lab's direct file writes in `path`: `(line, what)` pairs."""
    tree = ast.parse(path.read_text())
    replacing_names = {
        item.optional_vars.id
        for node in ast.walk(tree)
        if isinstance(node, ast.With)
        for item in node.items
        if isinstance(item.context_expr, ast.Call)
        and getattr(item.context_expr.func, "id", "") == "replacing"
        and isinstance(item.optional_vars, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        target = node.args[-1 if name == "copyfile" else 0] if node.args else None
        into_replacing = isinstance(target, ast.Name) and target.id in replacing_names
        if name in NAMED_WRITERS and into_replacing:
            continue
        if name in WRITE_METHODS | NAMED_WRITERS:
            found.append((node.lineno, name))
        elif name == "open" and len(node.args) > 1:
            mode = getattr(node.args[1], "value", "")
            if any(c in str(mode) for c in "wxa"):
                found.append((node.lineno, f"open(..., {mode!r})"))
    return found


def test_every_writer_of_the_lab_writes_through_the_atomic_helpers():
    direct = {}
    for path in sorted(LAB.rglob("*.py")):
        relative = path.relative_to(REPO_ROOT).as_posix()
        if relative == "keras_rda/lab/files.py":
            continue
        writes = _writes(path)
        if relative in APPENDS:
            writes = [w for w in writes if w[1] != "open(..., 'a')"]
        if writes:
            direct[relative] = writes
    assert not direct, f"writes not through keras_rda.lab.files: {direct}"


def test_the_probe_of_writers_sees_a_direct_write(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "def f(p, model, fig):\n"
        "    p.write_text('x')\n"
        "    model.save_weights(p)\n"
        "    with replacing(p) as tmp:\n"
        "        fig.savefig(tmp)\n"
    )
    assert _writes(path) == [(2, "write_text"), (3, "save_weights")]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "latest.json"
    files.write_atomically(path, '{"epoch": 1}')
    with pytest.raises(RuntimeError):
        with files.replacing(path) as tmp:
            tmp.write_text('{"epo')  # a kill here leaves only this
            raise RuntimeError
    assert json.loads(path.read_text()) == {"epoch": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json"]
    files.write_atomically(path, '{"epoch": 2}')
    assert json.loads(path.read_text()) == {"epoch": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json"]


def test_records_and_checkpoints_replace_their_files(tmp_path, monkeypatch):
    """Each of a run's files is moved into place: seen as `os.replace`."""
    replaced = []
    real = os.replace

    def record(src, dst):
        replaced.append(pathlib.Path(dst).name)
        real(src, dst)

    monkeypatch.setattr(files.os, "replace", record)
    assert main([*TRAIN, "--out", str(tmp_path)]) == 0
    for name in ("run.json", "ckpt-1.weights.h5", "latest.json", "final.weights.h5"):
        assert name in replaced
    assert {"result.json", "reber-gru.json", "reber-gru.png"} <= set(replaced)


# --------------------------------------------------- non-finite losses


def test_a_nan_loss_stops_the_run_with_one_line_and_a_diverged_record(capsys):
    from keras_rda.lab.runs import run_loop
    from keras_rda.lab.tasks import get_task

    task = get_task("reber", max_length=12)
    batches = task.batches

    def poisoned(batch_size, seed=0):
        for step, (x, y, w) in enumerate(batches(batch_size, seed), 1):
            yield (np.full_like(x, np.nan) if step >= 3 else x), y, w

    task.batches = poisoned
    result = run_loop.train(
        task,
        "gru",
        steps=8,
        batch_size=4,
        units=3,
        eval_every=4,
        eval_examples=6,
        verbose=0,
    )
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "not finite" in line]
    assert lines == [
        "gru (seed 0) stopped at step 3: the training loss is nan, not finite, "
        "so no later step can recover; the run is recorded as diverged"
    ]
    assert result.diverged and result.steps == 4  # the interval it stopped in
    assert result.to_dict()["diverged"] is True


# ---------------------------------------------- no backend to parse


PROBE = """
import json, sys
import _keras_rda_cli
codes = [_keras_rda_cli.main(argv) for argv in json.loads(sys.argv[1])]
loaded = [m for m in ("tensorflow", "keras", "jax", "torch") if m in sys.modules]
print("REPORT" + json.dumps({"codes": codes, "loaded": loaded}))
"""
QUICK = [
    ["--help"],
    ["tasks"],
    ["models"],
    ["train", "--help"],
    ["train", "copy", "--learning-rate", "-1"],
    ["train", "copy", "--seed", "-1"],
    ["train", "nope"],
    ["train", "copy", "--model", "nope"],
    ["train", "copy", "--model", "dnc", "--model-arg", "bogus=3"],
    ["train", "copy", "--out", "/dev/null"],
    ["train", "copy", "--bogus"],
    ["enwik8", "--steps", "0"],
    ["enwik8", "--data", "/nonexistent/enwik8"],
]


def _fresh_python(*args):
    """A Python process of the repository, TensorFlow's logging as a user
    has it (not the tests' quieter setting)."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_parsing_and_flag_errors_import_no_backend():
    result = _fresh_python("-c", PROBE, json.dumps(QUICK))
    report = json.loads(result.stdout.splitlines()[-1][len("REPORT") :])
    assert report == {"codes": [0, 0, 0, 0] + [2] * 9, "loaded": []}, result.stderr
    errors = [line for line in result.stderr.splitlines() if line]
    assert len(errors) == 9 and all(e.startswith("keras-rda") for e in errors), errors


@pytest.mark.parametrize("argv", [["--help"], ["train", "copy", "--clipnorm", "0"]])
def test_the_console_script_prints_no_backend_log_lines(argv):
    result = _fresh_python("-m", "_keras_rda_cli", *argv)
    assert result.returncode == (0 if argv == ["--help"] else 2)
    for line in result.stderr.splitlines():
        assert not any(
            word in line for word in ("absl", "tensorflow", "I0000", "cuda", "oneDNN")
        ), result.stderr
    if argv != ["--help"]:
        assert result.stderr.count("\n") == 1
