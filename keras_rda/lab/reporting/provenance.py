"""Where a run came from: versions, git commit and machine, for its record.

`provenance()` is what every JSON record under `results/` carries besides
its runs, so that a number in the docs can be traced to the code, the
libraries and the hardware that produced it.
"""

import datetime
import os
import pathlib
import platform
import subprocess
import sys

# The checkout: keras_rda/lab/reporting/ -> ../../..
PACKAGE_ROOT = pathlib.Path(__file__).resolve().parents[3]


def git_commit(root=PACKAGE_ROOT):
    """`{"commit": sha, "dirty": bool}` of the checkout holding the package.

    `dirty` says whether a tracked file differs from the commit, records
    under `results/` aside: a run that rewrites a committed record (or the
    second of two benchmark commands) still ran the committed code.

    Outside a git checkout (an installed wheel, or a copy of the tree on
    another machine) the commit is `$KERAS_RDA_GIT_COMMIT` when set, else
    None, and `dirty` is None.
    """
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            [
                "git",
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":!results",
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": os.environ.get("KERAS_RDA_GIT_COMMIT"), "dirty": None}
    return {"commit": commit, "dirty": bool(status.strip())}


def library_versions():
    """Versions of Python, NumPy, Keras, its backend and TensorFlow."""
    import keras
    import numpy as np

    versions = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "keras": keras.__version__,
        "backend": keras.backend.backend(),
    }
    for module in ("tensorflow", "jax", "torch"):
        if module in sys.modules:
            versions[module] = getattr(sys.modules[module], "__version__", None)
    return versions


def accelerators():
    """Names of the accelerators the backend sees (empty on a CPU)."""
    import keras

    backend = keras.backend.backend()
    try:
        if backend == "tensorflow":
            import tensorflow as tf

            return [
                f"{d.device_type}:{d.name}"
                for kind in ("GPU", "TPU")
                for d in tf.config.list_physical_devices(kind)
            ]
        if backend == "jax":
            import jax

            return [
                f"{d} ({d.device_kind})" for d in jax.devices() if d.platform != "cpu"
            ]
        if backend == "torch":
            import torch

            if torch.cuda.is_available():
                return [
                    torch.cuda.get_device_name(i)
                    for i in range(torch.cuda.device_count())
                ]
    except Exception:  # noqa: BLE001  (a record must not fail on this)
        return None
    return []


def machine():
    """The machine: platform, processor, cores and accelerators."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "usable_cores": usable,
        "accelerators": accelerators(),
    }


def provenance():
    """The provenance fields of a record (see the module docstring)."""
    from keras_rda import __version__

    return {
        "keras_rda_version": __version__,
        "git": git_commit(),
        "versions": library_versions(),
        "machine": machine(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
    }


def script_command(argv=None):
    """The command line that reruns this benchmark script, for its record.

    `KERAS_BACKEND=<backend> python <script> <arguments>`, the script's
    path relative to the repository when it is inside it, so that the
    record's command can be pasted into a checkout as it is.

    Args:
        argv: the script's arguments (default: `sys.argv[1:]`).
    """
    import shlex

    import keras

    script = pathlib.Path(sys.argv[0]).resolve()
    try:
        script = script.relative_to(PACKAGE_ROOT)
    except ValueError:
        pass
    arguments = sys.argv[1:] if argv is None else list(argv)
    return f"KERAS_BACKEND={keras.backend.backend()} python " + shlex.join(
        [str(script), *arguments]
    )
