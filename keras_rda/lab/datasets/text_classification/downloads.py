"""Download of the Zhang et al. (2015) archives, checked before extraction.

DBpedia and Yahoo! Answers come from the fast.ai mirror of the Zhang, Zhao
& LeCun (2015) archives (tensorflow-datasets has no builder for them). Each
archive is downloaded once with `keras.utils.get_file` and checked against
the size and the MD5 of its first MiB that fast.ai publishes for its mirror
(its `checks.txt`); a file that does not match is refused (a truncated or
replaced download), and nothing is extracted from it. The checked archive
is extracted once, next to it, into `<archive>_extracted/`.
"""

import hashlib
import pathlib
import shutil
import tarfile
import tempfile

ZHANG_URL = "https://s3.amazonaws.com/fast-ai-nlp/{}.tgz"
# Archive name: (size in bytes, MD5 of the first CHECKED_BYTES bytes).
ZHANG_ARCHIVES = {
    "dbpedia_csv": (68_341_743, "239c7837b9e79db34486f3de6a00e38e"),
    "yahoo_answers_csv": (319_476_345, "0632a0d236ef3a529c0fa4429b339f68"),
}
CHECKED_BYTES = 2**20


def archive_check(path):
    """`(size, md5)` of a file: its size in bytes and the MD5 (hex) of its
    first `CHECKED_BYTES` bytes."""
    path = pathlib.Path(path)
    with open(path, "rb") as f:
        head = f.read(CHECKED_BYTES)
    return path.stat().st_size, hashlib.md5(head).hexdigest()


def verify_archive(path, name):
    """Raises `ValueError` unless `path` has the published check of `name`."""
    expected = ZHANG_ARCHIVES[name]
    actual = archive_check(path)
    if actual != expected:
        raise ValueError(
            f"{path} is not the {name} archive of {ZHANG_URL.format(name)}: it "
            f"has {actual[0]:,} bytes and its first MiB has MD5 {actual[1]}, "
            f"expected {expected[0]:,} bytes and MD5 {expected[1]}. Delete it "
            "and load the data again to download it anew."
        )


def download_zhang_archive(name, cache_dir=None):
    """The folder (a `pathlib.Path`) with `train.csv` and `test.csv` of
    archive `name` ("dbpedia_csv" or "yahoo_answers_csv"), downloaded into
    `keras.utils.get_file`'s `cache_dir` (None: `~/.keras`).

    Raises:
        ValueError: if the downloaded archive fails its check.
    """
    import keras

    archive = pathlib.Path(
        keras.utils.get_file(
            fname=f"{name}.tgz", origin=ZHANG_URL.format(name), cache_dir=cache_dir
        )
    )
    verify_archive(archive, name)
    extracted = archive.parent / f"{name}_extracted"
    if not extracted.is_dir():
        _extract(archive, extracted)
    inner = extracted / name
    return inner if (inner / "train.csv").is_file() else extracted


def _extract(archive, destination):
    """Extracts a tar archive into `destination` (all or nothing)."""
    partial = pathlib.Path(tempfile.mkdtemp(dir=destination.parent))
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
        partial.rename(destination)
    finally:
        if partial.exists():
            shutil.rmtree(partial)
