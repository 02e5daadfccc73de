"""The files the lab writes and reads back, and one run per output folder.

- `write_atomically(path, data)` and `replacing(path)`: every file the lab
  writes goes to a temporary file in the same folder first and is moved
  into place with `os.replace`, so a reader, or a rerun after a kill, finds
  the old file or the new one, never a part of one.
- `read_json(path)`: a JSON file the lab wrote, or `DamagedFile` naming it.
- `FolderLock(folder)`: one run per output folder at a time (`fcntl.flock`,
  `msvcrt.locking` on Windows, on `FOLDER/.keras-rda.lock`): the system
  releases it when the process ends, however it ends.
"""

import contextlib
import json
import os
import pathlib
import secrets

LOCK_NAME = ".keras-rda.lock"


class DamagedFile(ValueError):
    """A file the lab wrote that is missing, cut short or not what it wrote.

    Attributes:
        path: the file.
        reason: what is wrong with it.
    """

    def __init__(self, path, reason):
        self.path = pathlib.Path(path)
        self.reason = reason
        super().__init__(f"{self.path} is damaged: {reason}")


def unreadable(path, what, error):
    """A `DamagedFile` for `path`: `what` cannot be read, with the first line
    of `error`'s message (its type's name where it has none)."""
    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return DamagedFile(path, f"{what} ({first})")


class FolderInUse(RuntimeError):
    """Another process runs into the folder (it holds its `FolderLock`)."""

    def __init__(self, folder, holder):
        self.folder = pathlib.Path(folder)
        self.holder = holder
        by = f" (process {holder})" if holder else ""
        super().__init__(
            f"{self.folder} is in use by another keras-rda run{by}; wait for it "
            "to end or give this run another output folder"
        )


class FolderUnusable(OSError):
    """An output folder that cannot be made or written."""

    def __init__(self, folder, error):
        self.folder = pathlib.Path(folder)
        reason = error.strerror or str(error)
        where = (
            f" ({error.filename})" if error.filename not in (None, str(folder)) else ""
        )
        super().__init__(f"cannot write in {self.folder}: {reason}{where}")


def make_folder(folder):
    """Creates `folder` (and its parents); `FolderUnusable` if it cannot.

    Returns:
        `folder` as a `pathlib.Path`.
    """
    folder = pathlib.Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError as error:  # a file where the folder should be
        error.strerror = "it is a file, not a folder"
        raise FolderUnusable(folder, error) from None
    except OSError as error:
        raise FolderUnusable(folder, error) from None
    return folder


def check_folder(folder):
    """`FolderUnusable` if `folder`, or the nearest of its parents that
    exists, is not a folder; writes nothing.

    For the checks a run makes before it may write (a multi-worker run
    learns only from its strategy where it writes).

    Returns:
        `folder` as a `pathlib.Path`.
    """
    folder = pathlib.Path(folder)
    for path in (folder, *folder.parents):
        if path.exists():
            if not path.is_dir():
                error = FileExistsError(17, "it is a file, not a folder", str(path))
                raise FolderUnusable(folder, error)
            break
    return folder


@contextlib.contextmanager
def replacing(path):
    """Yields a fresh name beside `path` to write to; then moves it to `path`.

    For writers that need a file name (`model.save_weights`, `savefig`):
    the name is hidden, unique to the call, and ends like `path`
    (`.weights.h5`, `.png`), so that they accept it. If the block raises,
    whatever was written there is removed and `path` is left as it was.
    """
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}")
    tmp = tmp.with_name(tmp.name + _suffix(path))
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomically(path, data):
    """Writes `data` (str or bytes) to `path` (returned as a `pathlib.Path`)
    through a temporary file flushed to disk first, so that after a crash
    `path` holds either its old or its new contents."""
    path = pathlib.Path(path)
    with replacing(path) as tmp:
        with open(tmp, "xb") as file:
            file.write(data.encode() if isinstance(data, str) else data)
            file.flush()
            os.fsync(file.fileno())
    return path


def read_json(path, required=()):
    """The JSON value in `path`, a file the lab wrote, with the keys `required`.

    Raises:
        DamagedFile: `path` is missing, unreadable, not JSON (e.g. cut
            short) or lacks a `required` key.
    """
    path = pathlib.Path(path)
    try:
        value = json.loads(path.read_text())
    except FileNotFoundError:
        raise DamagedFile(path, "it is missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DamagedFile(path, f"it cannot be read ({error})") from None
    except json.JSONDecodeError as error:
        raise DamagedFile(path, f"it is not complete JSON ({error})") from None
    missing = [
        key for key in required if not isinstance(value, dict) or key not in value
    ]
    if missing:
        raise DamagedFile(path, f"it lacks {', '.join(map(repr, missing))}")
    return value


class FolderLock:
    """A context manager holding `FOLDER/.keras-rda.lock` (the folder made if
    needed) so that one run at a time writes there; `owner` (e.g. the command
    line) is written into it after the process id, for another run's message.

    Raises (on entering):
        FolderInUse: another process holds the lock.
        FolderUnusable: the folder cannot be made, or the lock file written.
    """

    def __init__(self, folder, owner=""):
        self.folder = pathlib.Path(folder)
        self.owner = owner
        self._file = None

    @property
    def path(self):
        return self.folder / LOCK_NAME

    def __enter__(self):
        make_folder(self.folder)
        while True:
            try:
                file = open(self.path, "a+")
            except OSError as error:
                raise FolderUnusable(self.folder, error) from None
            if not _try_lock(file):
                file.seek(0)
                holder = file.read().strip()
                file.close()
                raise FolderInUse(self.folder, holder)
            if _is_current(file, self.path):
                break
            # Its holder removed the file as we opened it: lock the new one.
            _unlock(file)
            file.close()
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()} {self.owner}".strip() + "\n")
        file.flush()
        self._file = file
        return self

    def __exit__(self, *exc_info):
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError):  # Windows keeps open files
                self.path.unlink(missing_ok=True)  # while locked: see __enter__
            _unlock(file)
            file.close()
        return False


def _suffix(path):
    """The name's suffixes from the first dot on (`.weights.h5`), or ""."""
    name = path.name.lstrip(".")
    return name[name.index(".") :] if "." in name else ""


try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


def _is_current(file, path):
    """Whether the open `file` is still the one at `path` (not removed)."""
    try:
        return os.path.samestat(os.fstat(file.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


def _try_lock(file):
    """Takes an exclusive lock on `file` without waiting; False if held."""
    try:
        if fcntl is not None:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            import msvcrt

            file.seek(0)
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
    except OSError:  # BlockingIOError on POSIX, PermissionError on Windows
        return False
    return True


def _unlock(file):
    if fcntl is not None:
        fcntl.flock(file.fileno(), fcntl.LOCK_UN)
    else:
        import msvcrt

        file.seek(0)
        msvcrt.locking(file.fileno(), msvcrt.LK_UNLCK, 1)
