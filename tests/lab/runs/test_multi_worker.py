"""`--strategy multi-worker` on TensorFlow: two worker processes on
127.0.0.1, each with its `TF_CONFIG`, give the one-process run.

The workers split each global batch in two (`run_loop.worker_rows`) and
sum their gradients; the mathematics is the one-device step's, so the
learning curve is the same within float32 round-off. The two-worker run
stops halfway and is then extended: the second half resumes, on both
workers, from the chief's checkpoint. Only the chief writes the record and
the checkpoints. Every process is bounded in time and killed on failure.
"""

import json
import os
import random
import socket
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

pytest.importorskip("tensorflow")

TIMEOUT = 240  # seconds for one launch of the workers
ARGS = [
    "train", "copy", "--model", "rda",
    "--task-arg", "length=8", "--task-arg", "num_symbols=4",
    "--task-arg", "copy_length=3",
    "--eval-every", "2", "--batch-size", "8", "--units", "8",
    "--eval-examples", "20", "--seed", "3", "--verbose", "2",
]  # fmt: skip


# Ports for the workers' servers come from below Linux's ephemeral range
# (32768-60999 by default), where no outgoing connection of this machine
# takes its local port: a port found free stays free until its worker binds.
PORT_RANGE = (20000, 32000)

# What a worker prints when the cluster, not the run, failed: a peer that
# stopped answering in time (a loaded machine) or a server that could not
# bind. Such a launch is repeated once on other ports; any other failure,
# and a second one, fails the test with every worker's output.
CLUSTER_FAULTS = (
    "stopped sending heartbeats",
    "UnavailableError",
    "Address already in use",
    "Failed to bind",
)


def free_ports(count):
    """`count` distinct ports free on 127.0.0.1 now, from `PORT_RANGE`."""
    rng = random.Random()
    ports = []
    while len(ports) < count:
        port = rng.randrange(*PORT_RANGE)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        if port not in ports:
            ports.append(port)
    return ports


def start_workers(out, steps, strategy, workers):
    """`keras-rda train` in `workers` processes; their return codes and
    outputs, in order. Every process is killed after `TIMEOUT` seconds."""
    env = dict(
        os.environ,
        KERAS_BACKEND="tensorflow",
        TF_CPP_MIN_LOG_LEVEL="2",
        PYTHONPATH=str(REPO_ROOT),
        CUDA_VISIBLE_DEVICES="",
    )
    command = [sys.executable, "-m", "keras_rda.lab.cli", *ARGS]
    command += ["--steps", str(steps), "--out", str(out), "--strategy", strategy]
    ports = free_ports(workers)
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    procs = []
    try:
        for index in range(workers):
            if strategy == "multi-worker":
                env["TF_CONFIG"] = json.dumps(
                    {"cluster": cluster, "task": {"type": "worker", "index": index}}
                )
            procs.append(
                subprocess.Popen(
                    command,
                    env=env,
                    cwd=REPO_ROOT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        outputs = [p.communicate(timeout=TIMEOUT)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return [p.returncode for p in procs], outputs


def launch(out, steps, strategy, workers):
    """`start_workers`, repeated once after a cluster fault; the outputs."""
    for attempt in (1, 2):
        codes, outputs = start_workers(out, steps, strategy, workers)
        failed = [o for c, o in zip(codes, outputs, strict=True) if c != 0]
        if not failed:
            return outputs
        cluster_fault = all(any(f in o for f in CLUSTER_FAULTS) for o in failed)
        if attempt == 2 or not cluster_fault:
            break
    report = "\n".join(
        f"--- worker {i}, exit {c}:\n{o[-2500:]}"
        for i, (c, o) in enumerate(zip(codes, outputs, strict=True))
    )
    pytest.fail(f"{strategy} launch failed (attempt {attempt}):\n{report}")


def curve(out):
    record = json.loads((out / "copy-rda.json").read_text())
    (run,) = record["runs"]
    return run["curve"], run["settings"]["strategy"]


def test_two_workers_resumed_equal_one_process(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    launch(one, 4, "default", workers=1)
    first = launch(two, 2, "multi-worker", workers=2)
    assert "Wrote " + str(two) in first[0]
    assert "Wrote " + str(two) not in first[1]  # worker 1: a temporary folder
    second = launch(two, 4, "multi-worker", workers=2)
    for output in second:  # both workers, from the chief's checkpoint
        assert "resuming after step 2" in output, output[-2000:]
    expected, name = curve(one)
    got, name_two = curve(two)
    assert (name, name_two) == ("default", "multi-worker")
    assert [c["step"] for c in got] == [2, 4]
    for a, b in zip(expected, got, strict=True):
        for key in ("loss", "accuracy", "val_loss", "val_accuracy"):
            assert b[key] == pytest.approx(a[key], rel=1e-5, abs=1e-6), (key, a, b)
    # Only the chief wrote here: the record, its plot, its checkpoints.
    written = sorted(p.name for p in two.iterdir())
    assert written == ["checkpoints", "copy-rda.json", "copy-rda.png"]
