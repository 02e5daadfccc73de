"""enwik8 (Hutter Prize Wikipedia) for byte-level language modelling.

The RDA paper (sections 6.1, 6.5, Table 7) trains on enwik8, 100M characters
split into the first 90M for training, the next 5M for validation and the
final 5M for test. A token is the byte's value (256 ids, of which enwik8
uses 205): lossless, no vocabulary file, the same for every split and
prefix; the 51 unused ids change BPC by well under 0.001 bits once trained.

The layout for truncated backpropagation through time: a split of N bytes is
cut into `batch_size` contiguous rows of `L = N // batch_size` bytes (row i is
bytes `[i*L, (i+1)*L)`), and segment k of every row is columns
`[k*bptt, (k+1)*bptt)` with targets shifted by one. So row i of segment k+1
continues row i of segment k, and the recurrent state left by segment k is
the right initial state for segment k+1.

Example:

```python
import keras_rda
data = keras_rda.lab.datasets.enwik8("/path/to/enwik8.zip")
ds = data.dataset("train", batch_size=128, bptt=250)
for inputs, targets in ds.take(2):   # int32 [128, 250] each
    ...
```
"""

import codecs
import dataclasses
import hashlib
import os
import pathlib
import zipfile

import numpy as np

from keras_rda.utils import validation

URL = "http://mattmahoney.net/dc/enwik8.zip"
ZIP_SIZE = 36_445_475
ENWIK8_SIZE = 100_000_000
VOCAB_SIZE = 256
# The paper's split of the 10^8 bytes: 90M train, 5M validation, 5M test.
SPLIT_FRACTIONS = (0.9, 0.05, 0.05)
SPLITS = ("train", "valid", "test")

# Files with a known exact size and digest: the full file (the MD5 that
# Matt Mahoney publishes with enwik8, http://mattmahoney.net/dc/textdata.html)
# and the real first 10^6 bytes kept for offline tests (sha256).
KNOWN_FILES = {
    "enwik8": (ENWIK8_SIZE, ("md5", "a1fa5ffddb56f4953e226637dabbb36a")),
    "enwik6": (
        1_000_000,
        ("sha256", "369b688978f649681136198fb96db14c1616756260c55fb4b65e9bc049552cad"),
    ),
}
# enwik8 starts with this MediaWiki XML header; any prefix of it does too.
_HEADER = b"<mediawiki "
# A file of another name is taken for a prefix of enwik8 when it starts with
# the header, its first 10^6 bytes (if it has them) are enwik6's, and it is
# text as enwik8 is: UTF-8 with no control characters but tab and newline
# (the real first 10^6 bytes hold none, and not one undecodable byte). A
# damaged copy (random bytes after the header, a binary file) has about one
# control byte in 9 and one undecodable byte in 2; the limits leave room for
# what the rest of enwik8 may hold.
_MAX_CONTROL_SHARE = 1e-3
_MAX_UNDECODABLE_SHARE = 1e-3
_CONTROL_BYTES = np.array(
    [b for b in range(32) if b not in (9, 10, 13)] + [127], dtype=np.intp
)


@dataclasses.dataclass(frozen=True)
class Enwik8:
    """The three splits of enwik8 as byte-id arrays.

    Attributes:
        train: `uint8` array, the first 90% of the bytes.
        valid: `uint8` array, the next 5%.
        test: `uint8` array, the last 5%.
        path: the file the bytes were read from.
        vocab_size: 256 (byte-level ids, `id == byte`).
    """

    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray
    path: str = ""
    vocab_size: int = VOCAB_SIZE

    def split(self, name):
        """The token array of split `name` (`"train"`, `"valid"`, `"test"`)."""
        if name not in SPLITS:
            raise ValueError(
                "Received an invalid value for argument `split`, expected one "
                f"of {SPLITS}, got {name!r}"
            )
        return getattr(self, name)

    def dataset(self, split, batch_size, bptt, start_segment=0, drop_remainder=True):
        """`segment_dataset` of `split`."""
        return segment_dataset(
            self.split(split),
            batch_size,
            bptt,
            start_segment=start_segment,
            drop_remainder=drop_remainder,
        )


def enwik8(path=None, *, cache_dir=None, split_fractions=SPLIT_FRACTIONS, verify=True):
    """Loads enwik8 with the paper's 90M/5M/5M split.

    The file is found, in this order, at `path` (the zip, the unzipped file,
    or a directory holding either), in `$KERAS_RDA_DATA_DIR` (`enwik8` or
    `enwik8.zip`), or downloaded from the canonical URL with
    `keras.utils.get_file` (cached under `cache_dir`, default `~/.keras`).

    Args:
        path: optional path to `enwik8.zip`, `enwik8` (or a prefix of it such
            as `enwik6`, split in the same proportions) or a directory
            containing one of them.
        cache_dir: download cache directory for `keras.utils.get_file`.
        split_fractions: `(train, valid, test)` fractions summing to 1.
        verify: check the size and published digest of files with a known
            name (`enwik8`, `enwik6`), and that any other file can be a
            prefix of enwik8 (its header, its first 10^6 bytes, text as
            enwik8 is: see `_verify_prefix`).

    Returns:
        An `Enwik8` with `uint8` arrays `train`, `valid`, `test`.

    Raises:
        FileNotFoundError: `path` does not exist.
        ValueError: the file is truncated, corrupt, not enwik8, or too small
            to split.
    """
    fractions = validation.fractions("split_fractions", split_fractions, 3)
    file = _locate(path, cache_dir)
    data, name = _read_bytes(file)
    if verify:
        _verify(data, name, file)
    tokens = np.frombuffer(data, dtype=np.uint8)
    train, valid, test = split_tokens(tokens, fractions)
    return Enwik8(train=train, valid=valid, test=test, path=str(file))


def split_tokens(tokens, split_fractions=SPLIT_FRACTIONS):
    """Splits a 1-D token array into contiguous train/valid/test parts of
    `round(f * N)`, `round(f * N)` and the rest (exactly 90M/5M/5M of 10^8)."""
    fractions = validation.fractions("split_fractions", split_fractions, 3)
    n = len(tokens)
    n_train = int(round(fractions[0] * n))
    n_valid = int(round(fractions[1] * n))
    if min(n_train, n_valid, n - n_train - n_valid) < 2:
        raise ValueError(
            f"The enwik8 file has {n} bytes, too few to split into train, "
            f"validation and test with fractions {fractions}."
        )
    return (
        tokens[:n_train],
        tokens[n_train : n_train + n_valid],
        tokens[n_train + n_valid :],
    )


def decode(ids):
    """Token ids back to bytes (the inverse of the byte-level vocabulary)."""
    return np.asarray(ids, dtype=np.uint8).tobytes()


def batchify(tokens, batch_size):
    """N tokens laid out as `[batch_size, L = N // batch_size]` contiguous
    rows (row i: tokens `[i * L, (i + 1) * L)`; the last `N % batch_size`
    tokens are dropped)."""
    validation.positive_int("batch_size", batch_size)
    tokens = np.asarray(tokens)
    row_len = len(tokens) // batch_size
    if row_len < 2:
        raise ValueError(
            f"Received {len(tokens)} tokens, too few for `batch_size`="
            f"{batch_size} rows of at least 2 tokens each."
        )
    return tokens[: batch_size * row_len].reshape(batch_size, row_len)


def num_segments(num_tokens, batch_size, bptt, drop_remainder=True):
    """Number of segments `segment_dataset` yields for `num_tokens` tokens."""
    validation.positive_int("bptt", bptt)
    predicted = num_tokens // batch_size - 1  # each row predicts L - 1 tokens
    if drop_remainder:
        return max(predicted // bptt, 0)
    return -(-predicted // bptt)


def _segment_parts(tokens, batch_size, bptt, start_segment, drop_remainder):
    """`(full, tail)`: the segments from `start_segment` on, the full-length
    ones `(inputs, targets)` `[segments, batch_size, bptt]` and the last,
    shorter one `[batch_size, < bptt]` (with `drop_remainder=False`), each
    None where there is none."""
    rows = batchify(tokens, batch_size)
    n = num_segments(len(tokens), batch_size, bptt, drop_remainder)
    if not 0 <= start_segment <= n:
        raise ValueError(
            "Received an invalid value for argument `start_segment`, expected "
            f"an integer in [0, {n}], got {start_segment}"
        )
    if n == 0:
        raise ValueError(
            f"Received {len(tokens)} tokens, too few for one segment of "
            f"`bptt`={bptt} in each of `batch_size`={batch_size} rows."
        )
    n_full = min((rows.shape[1] - 1) // bptt, n)
    full = tail = None
    if start_segment < n_full:
        width = (n_full - start_segment) * bptt
        begin = start_segment * bptt
        inputs = rows[:, begin : begin + width]
        targets = rows[:, begin + 1 : begin + width + 1]
        shape = (batch_size, n_full - start_segment, bptt)
        # [segments, batch, bptt]
        full = (
            inputs.reshape(shape).transpose(1, 0, 2),
            targets.reshape(shape).transpose(1, 0, 2),
        )
    if n > n_full and start_segment <= n_full:
        begin = n_full * bptt
        tail = (rows[:, begin:-1], rows[:, begin + 1 :])
    return full, tail


def segments(tokens, batch_size, bptt, start_segment=0, drop_remainder=True):
    """The segments of `segment_dataset` (same arguments) as NumPy arrays,
    without TensorFlow: what the enwik8 loop reads on every backend."""
    full, tail = _segment_parts(tokens, batch_size, bptt, start_segment, drop_remainder)
    if full is not None:
        for x, y in zip(*full):
            yield x.astype(np.int32), y.astype(np.int32)
    if tail is not None:
        yield tail[0].astype(np.int32), tail[1].astype(np.int32)


def segment_dataset(tokens, batch_size, bptt, start_segment=0, drop_remainder=True):
    """Truncated-BPTT segments of a token stream as a `tf.data.Dataset` of
    int32 `(inputs, targets)`, `[batch_size, bptt]` each.

    Segment k is `(rows[:, k*bptt:(k+1)*bptt], rows[:, k*bptt+1:(k+1)*bptt+1])`
    with `rows = batchify(tokens, batch_size)`: row i of segment k+1 continues
    row i of segment k, so the recurrent state can be carried across.

    Args:
        tokens: 1-D array of token ids.
        batch_size: number of parallel rows (the global batch).
        bptt: segment length (truncated backpropagation length).
        start_segment: first segment to yield (to resume mid-epoch).
        drop_remainder: drop the last, shorter segment of each row (training
            wants one shape); with False every predictable token is in
            exactly one segment (evaluation), the last `[batch_size, < bptt]`.
    """
    import tensorflow as tf

    full, tail = _segment_parts(tokens, batch_size, bptt, start_segment, drop_remainder)
    parts = []
    if full is not None:
        parts.append(tf.data.Dataset.from_tensor_slices(full))
    if tail is not None:
        parts.append(tf.data.Dataset.from_tensors(tail))
    if not parts:
        parts.append(
            tf.data.Dataset.from_tensor_slices(
                (
                    np.zeros((0, batch_size, bptt), np.uint8),
                    np.zeros((0, batch_size, bptt), np.uint8),
                )
            )
        )
    ds = parts[0]
    for part in parts[1:]:
        ds = ds.concatenate(part)
    ds = ds.map(lambda x, y: (tf.cast(x, tf.int32), tf.cast(y, tf.int32)))
    return ds.prefetch(tf.data.AUTOTUNE)


def _locate(path, cache_dir):
    """The local file to read: `path`, `$KERAS_RDA_DATA_DIR`, or a download."""
    if path is not None:
        path = pathlib.Path(path).expanduser()
        if not path.exists():
            raise FileNotFoundError(
                f"enwik8 not found at {str(path)!r}. Pass the path of "
                "enwik8.zip, of the unzipped enwik8 file or of a directory "
                "holding one of them, or path=None to download it."
            )
        if path.is_dir():
            found = _find_in_dir(path)
            if found is None:
                raise FileNotFoundError(
                    f"Neither enwik8 nor enwik8.zip is in the directory {str(path)!r}."
                )
            return found
        return path
    data_dir = os.environ.get("KERAS_RDA_DATA_DIR")
    if data_dir:
        found = _find_in_dir(pathlib.Path(data_dir))
        if found is not None:
            return found
    import keras

    return pathlib.Path(
        keras.utils.get_file(
            fname="enwik8.zip",
            origin=URL,
            cache_dir=cache_dir,
            cache_subdir="datasets",
        )
    )


def _find_in_dir(directory):
    for name in ("enwik8", "enwik8.zip"):
        if (directory / name).is_file():
            return directory / name
    return None


def _read_bytes(file):
    """The raw bytes of `file` (unzipping `enwik8` from a zip) and its name."""
    file = pathlib.Path(file)
    if zipfile.is_zipfile(file):
        try:
            with zipfile.ZipFile(file) as archive:
                names = archive.namelist()
                member = "enwik8" if "enwik8" in names else None
                if member is None:
                    raise ValueError(
                        f"The zip file {str(file)!r} holds {names[:5]}, not "
                        "`enwik8`: it is not enwik8.zip."
                    )
                # Reading checks the member's CRC-32.
                return archive.read(member), member
        except (zipfile.BadZipFile, EOFError, OSError) as error:
            raise ValueError(
                f"The zip file {str(file)!r} is corrupt or truncated "
                f"({error}); delete it and download enwik8.zip again "
                f"({ZIP_SIZE:,} bytes from {URL})."
            ) from error
    if file.suffix == ".zip":
        raise ValueError(
            f"{str(file)!r} is not a valid zip file ({file.stat().st_size:,} "
            f"bytes; enwik8.zip has {ZIP_SIZE:,}): it is truncated or corrupt."
        )
    return file.read_bytes(), file.name


def _verify(data, name, file):
    if not data.startswith(_HEADER):
        raise ValueError(
            f"{str(file)!r} does not start with enwik8's MediaWiki header "
            f"{_HEADER!r}: it is not enwik8 (or a prefix of it)."
        )
    if name not in KNOWN_FILES:
        _verify_prefix(data, file)
        return
    size, (algorithm, digest) = KNOWN_FILES[name]
    if len(data) != size:
        raise ValueError(
            f"{str(file)!r} has {len(data):,} bytes but {name} has {size:,}: "
            "the file is truncated or corrupt."
        )
    actual = hashlib.new(algorithm, data).hexdigest()
    if actual != digest:
        raise ValueError(
            f"The {algorithm} of {str(file)!r} is {actual}, expected the "
            f"published {digest}: the file is corrupt."
        )


def _verify_prefix(data, file):
    """Checks that `data`, from a file of no known name, can be a prefix of
    enwik8: its first 10^6 bytes are enwik6 (when it has that many), and it
    is text as enwik8 is (see `_MAX_CONTROL_SHARE`)."""
    size, (algorithm, digest) = KNOWN_FILES["enwik6"]
    if len(data) >= size and hashlib.new(algorithm, data[:size]).hexdigest() != digest:
        raise ValueError(
            f"The first {size:,} bytes of {str(file)!r} are not enwik8's (their "
            f"{algorithm} is not the published {digest[:8]}...): it is not "
            "enwik8 or a prefix of it, or it is corrupt."
        )
    counts = np.bincount(np.frombuffer(data, np.uint8), minlength=256)
    control = int(counts[_CONTROL_BYTES].sum())
    if control > _MAX_CONTROL_SHARE * len(data):
        raise ValueError(
            f"{str(file)!r} is not text like enwik8: {control:,} of its "
            f"{len(data):,} bytes are control characters (enwik8 is UTF-8 XML "
            "with tabs and newlines only): it is corrupt, or not enwik8."
        )
    undecodable = _undecodable_characters(data)
    if undecodable > _MAX_UNDECODABLE_SHARE * len(data):
        raise ValueError(
            f"{str(file)!r} is not text like enwik8: {undecodable:,} of its "
            f"{len(data):,} bytes are not UTF-8 (enwik8 is UTF-8 XML): it is "
            "corrupt, or not enwik8."
        )


def _undecodable_characters(data, chunk=1 << 20):
    """How many replacement characters decoding `data` as UTF-8 gives (one
    per undecodable sequence, plus any U+FFFD in the text itself)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    count = 0
    for start in range(0, len(data), chunk):
        count += decoder.decode(data[start : start + chunk]).count("\ufffd")
    return count  # not final: a character cut by the end of a prefix is kept
