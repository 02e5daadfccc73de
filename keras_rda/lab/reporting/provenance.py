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


def _git(root, *args):
    """`git *args` in `root`: its stdout (raises `OSError` or
    `subprocess.SubprocessError` where git fails or is missing)."""
    return subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout


def _package_checkout(directory, at_top=False):
    """The top of the git checkout of this package that holds `directory`
    (a checkout where `keras_rda/__init__.py` is tracked), or None. A
    working directory in another project's repository is not one; with
    `at_top`, neither is a checkout whose top is not `directory` (a wheel
    installed into a virtual environment inside the clone: its files are
    copies, not the checkout's)."""
    try:
        top = pathlib.Path(_git(directory, "rev-parse", "--show-toplevel").strip())
        _git(top, "ls-files", "--error-unmatch", "keras_rda/__init__.py")
    except (OSError, subprocess.SubprocessError):
        return None
    if at_top and top.resolve() != pathlib.Path(directory).resolve():
        return None
    return top


def _checkout_commit(root):
    """`{"commit", "dirty"}` of the git checkout at `root` (raises where
    git fails or `root` is no checkout)."""
    commit = _git(root, "rev-parse", "HEAD").strip()
    status = _git(
        root, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!results"
    )
    return {"commit": commit, "dirty": bool(status.strip())}


def git_commit(root=None):
    """`{"commit": sha, "dirty": bool}` of the checkout holding the package.

    `dirty`: a tracked file differs from the commit, records under `results/`
    aside (a run that rewrites a committed record still ran the committed
    code). `root` defaults to the keras_rda checkout that holds the
    package's files, else (an installed copy) the one that holds the working
    directory. Outside a checkout the commit is `$KERAS_RDA_GIT_COMMIT` when
    set, else None, and `dirty` is None.
    """
    if root is None:
        root = _package_checkout(PACKAGE_ROOT, at_top=True) or _package_checkout(
            os.getcwd()
        )
    if root is not None:
        try:
            return _checkout_commit(root)
        except (OSError, subprocess.SubprocessError):
            pass
    return {"commit": os.environ.get("KERAS_RDA_GIT_COMMIT"), "dirty": None}


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


def _portable(word):
    """A command's word with an absolute path inside the checkout or the
    data directory (`$KERAS_RDA_DATA_DIR`) written relative to the
    checkout, as a reader runs it from there (`--data=PATH` too)."""
    option, equals, value = word.partition("=")
    if not (word.startswith("--") and equals):
        option, equals, value = "", "", word
    path = pathlib.Path(value)
    roots = [PACKAGE_ROOT, os.environ.get("KERAS_RDA_DATA_DIR")]
    if not path.is_absolute() or not any(
        root and path.is_relative_to(pathlib.Path(root).resolve()) for root in roots
    ):
        return word
    return option + equals + os.path.relpath(path, PACKAGE_ROOT)


def command(argv, backend=None):
    """A record's command, structured: what a reader runs to remake it,
    `{"argv": [...], "env": {"KERAS_BACKEND": backend}}` (`env` empty without
    a backend: Keras's default). Absolute paths in `argv` inside the checkout
    or the data directory are written relative to the checkout."""
    env = {"KERAS_BACKEND": backend} if backend else {}
    return {"argv": [_portable(str(word)) for word in argv], "env": env}


def script_command(argv=None):
    """The command that reruns this script (`python <script> ARGV`) or
    module of the package (`python -m <module> ARGV`) with the backend it
    ran on, for its record; `argv` defaults to `sys.argv[1:]`."""
    import keras

    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name.startswith("keras_rda."):
        target = ["-m", spec.name.removesuffix(".__main__")]
    else:
        target = [str(pathlib.Path(sys.argv[0]).resolve())]
    arguments = sys.argv[1:] if argv is None else list(argv)
    return command(["python", *target, *arguments], keras.backend.backend())
