"""keras_rda.lab.datasets.enwik8: file handling, the paper's split, the BPTT layout."""

import hashlib
import pathlib
import zipfile

import numpy as np
import pytest

import keras_rda
from keras_rda.lab.datasets.enwik8 import batchify
from keras_rda.lab.datasets.enwik8 import decode
from keras_rda.lab.datasets.enwik8 import num_segments
from keras_rda.lab.datasets.enwik8 import segment_dataset
from keras_rda.lab.datasets.enwik8 import segments
from keras_rda.lab.datasets.enwik8 import split_tokens

ENWIK6_SHA256 = "369b688978f649681136198fb96db14c1616756260c55fb4b65e9bc049552cad"
HEADER = b"<mediawiki xmlns="


def generated_bytes(n, seed=0):
    """An enwik8-like byte stream: the MediaWiki header then random text."""
    rng = np.random.default_rng(seed)
    body = rng.integers(32, 127, size=n - len(HEADER), dtype=np.uint8).tobytes()
    return HEADER + body


def write(path, data):
    path.write_bytes(data)
    return path


def write_zip(path, member, data):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
    return path


# ---------------------------------------------------------------- real data


def test_real_enwik6_split_and_vocabulary(data_dir):
    raw = (data_dir / "enwik6").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == ENWIK6_SHA256
    data = keras_rda.lab.datasets.enwik8(data_dir / "enwik6")
    # The paper's 90/5/5 split of 10^8 bytes scaled to 10^6.
    assert (len(data.train), len(data.valid), len(data.test)) == (
        900_000,
        50_000,
        50_000,
    )
    # Contiguous, in order, nothing lost; ids are the bytes themselves.
    joined = np.concatenate([data.train, data.valid, data.test])
    assert joined.tobytes() == raw
    assert data.vocab_size == 256
    assert decode(data.train[:11]) == b"<mediawiki "
    assert int(data.train.max()) < 256 and data.train.dtype == np.uint8


def test_real_enwik6_segments_continue_each_other(data_dir):
    data = keras_rda.lab.datasets.enwik8(data_dir / "enwik6")
    batch, bptt = 4, 50
    row_len = len(data.valid) // batch
    segments = list(data.dataset("valid", batch, bptt).take(3).as_numpy_iterator())
    for k, (x, y) in enumerate(segments):
        for i in range(batch):
            start = i * row_len + k * bptt
            np.testing.assert_array_equal(x[i], data.valid[start : start + bptt])
            np.testing.assert_array_equal(
                y[i], data.valid[start + 1 : start + bptt + 1]
            )
    # Row i of segment k+1 starts where row i of segment k's targets ended.
    np.testing.assert_array_equal(segments[1][0][:, 0], segments[0][1][:, -1])


def test_full_size_file_gets_paper_split():
    tokens = np.zeros(100_000_000, np.uint8)
    train, valid, test = split_tokens(tokens)
    assert (len(train), len(valid), len(test)) == (90_000_000, 5_000_000, 5_000_000)


# ----------------------------------------------------------- layout (generated)


@pytest.mark.parametrize("batch,bptt", [(3, 7), (5, 4), (1, 10)])
def test_layout_matches_independent_construction(batch, bptt):
    tokens = np.frombuffer(generated_bytes(997, seed=batch), np.uint8)
    row_len = len(tokens) // batch
    rows = [tokens[i * row_len : (i + 1) * row_len] for i in range(batch)]
    got = list(segment_dataset(tokens, batch, bptt).as_numpy_iterator())
    assert len(got) == (row_len - 1) // bptt == num_segments(len(tokens), batch, bptt)
    for i in range(batch):
        xs = np.concatenate([x[i] for x, _ in got])
        ys = np.concatenate([y[i] for _, y in got])
        np.testing.assert_array_equal(xs, rows[i][: len(xs)])
        np.testing.assert_array_equal(ys, rows[i][1 : len(xs) + 1])
    assert got[0][0].dtype == np.int32 and got[0][0].shape == (batch, bptt)


def test_evaluation_layout_predicts_every_character_once():
    tokens = np.frombuffer(generated_bytes(1003), np.uint8)
    batch, bptt = 4, 9
    got = list(
        segment_dataset(tokens, batch, bptt, drop_remainder=False).as_numpy_iterator()
    )
    row_len = len(tokens) // batch
    assert sum(y.shape[1] for _, y in got) == row_len - 1
    ys = np.concatenate([y for _, y in got], axis=1)
    np.testing.assert_array_equal(ys, batchify(tokens, batch)[:, 1:])
    assert got[-1][0].shape[1] == (row_len - 1) % bptt


def test_start_segment_resumes_the_stream():
    tokens = np.frombuffer(generated_bytes(800), np.uint8)
    full = list(segment_dataset(tokens, 4, 6).as_numpy_iterator())
    resumed = list(segment_dataset(tokens, 4, 6, start_segment=5).as_numpy_iterator())
    assert len(resumed) == len(full) - 5
    for (x1, y1), (x2, y2) in zip(full[5:], resumed):
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(y1, y2)


@pytest.mark.parametrize(
    "start,drop", [(0, True), (5, True), (0, False), (7, False), (8, False)]
)
def test_numpy_segments_equal_the_dataset(start, drop):
    """`segments` (NumPy, what the loop reads on every backend) yields what
    `segment_dataset`, checked above against an independent layout, does."""
    tokens = np.frombuffer(generated_bytes(331), np.uint8)
    expected = list(
        segment_dataset(tokens, 4, 9, start, drop_remainder=drop).as_numpy_iterator()
    )
    got = list(segments(tokens, 4, 9, start, drop_remainder=drop))
    assert len(got) == len(expected) > 0 or (start == 8 and len(got) == 1)
    for (x1, y1), (x2, y2) in zip(expected, got, strict=True):
        assert x2.dtype == y2.dtype == np.int32
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(y1, y2)
    with pytest.raises(ValueError, match="`start_segment`"):
        next(segments(tokens, 4, 9, 99))


def test_layout_argument_errors():
    tokens = np.zeros(100, np.uint8)
    with pytest.raises(ValueError, match="`batch_size`, expected a positive integer"):
        batchify(tokens, 0)
    with pytest.raises(ValueError, match="`bptt`, expected a positive integer"):
        segment_dataset(tokens, 2, 0)
    with pytest.raises(ValueError, match="too few"):
        segment_dataset(tokens, 2, 60)
    with pytest.raises(ValueError, match="`start_segment`"):
        segment_dataset(tokens, 2, 10, start_segment=99)


# ------------------------------------------------------------------- files


def test_zip_and_unzipped_and_directory_load_the_same(tmp_path):
    raw = generated_bytes(5000)
    (tmp_path / "plain").mkdir()
    plain = write(tmp_path / "plain" / "enwik8", raw)
    zipped = write_zip(tmp_path / "enwik8.zip", "enwik8", raw)
    a = keras_rda.lab.datasets.enwik8(plain, verify=False)
    b = keras_rda.lab.datasets.enwik8(zipped, verify=False)
    c = keras_rda.lab.datasets.enwik8(tmp_path / "plain", verify=False)
    for split in ("train", "valid", "test"):
        np.testing.assert_array_equal(a.split(split), b.split(split))
        np.testing.assert_array_equal(a.split(split), c.split(split))
    assert (len(a.train), len(a.valid), len(a.test)) == (4500, 250, 250)


def test_data_dir_env_var_is_used(tmp_path, monkeypatch):
    write_zip(tmp_path / "enwik8.zip", "enwik8", generated_bytes(2000))
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(tmp_path))
    data = keras_rda.lab.datasets.enwik8(verify=False)
    assert data.path == str(tmp_path / "enwik8.zip") and len(data.train) == 1800


def test_download_uses_canonical_url(tmp_path, monkeypatch):
    import keras

    zipped = write_zip(tmp_path / "dl.zip", "enwik8", generated_bytes(2000))
    calls = []

    def fake_get_file(**kwargs):
        calls.append(kwargs)
        return str(zipped)

    monkeypatch.delenv("KERAS_RDA_DATA_DIR", raising=False)
    monkeypatch.setattr(keras.utils, "get_file", fake_get_file)
    keras_rda.lab.datasets.enwik8(verify=False)
    assert calls[0]["origin"] == "http://mattmahoney.net/dc/enwik8.zip"
    assert calls[0]["fname"] == "enwik8.zip"


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="enwik8 not found"):
        keras_rda.lab.datasets.enwik8(tmp_path / "nothing.zip")
    with pytest.raises(FileNotFoundError, match="Neither enwik8 nor enwik8.zip"):
        keras_rda.lab.datasets.enwik8(tmp_path)


def test_truncated_enwik8_is_rejected(tmp_path):
    # A zip whose enwik8 member is short (an interrupted unzip/download).
    zipped = write_zip(tmp_path / "enwik8.zip", "enwik8", generated_bytes(3000))
    with pytest.raises(ValueError, match="has 3,000 bytes but enwik8 has 100,000,000"):
        keras_rda.lab.datasets.enwik8(zipped)
    plain = write(tmp_path / "enwik8", generated_bytes(3000))
    with pytest.raises(ValueError, match="truncated"):
        keras_rda.lab.datasets.enwik8(plain)


def test_truncated_and_corrupt_zip_archives(tmp_path):
    raw = generated_bytes(20_000)
    zipped = write_zip(tmp_path / "good.zip", "enwik8", raw).read_bytes()
    cut = write(tmp_path / "cut.zip", zipped[: len(zipped) // 2])
    with pytest.raises(ValueError, match="truncated or corrupt"):
        keras_rda.lab.datasets.enwik8(cut, verify=False)
    # Flip bytes inside the compressed member: the CRC-32 check fails.
    damaged = bytearray(zipped)
    for i in range(100, 140):
        damaged[i] ^= 0xFF
    bad = write(tmp_path / "bad.zip", bytes(damaged))
    with pytest.raises(ValueError, match="corrupt"):
        keras_rda.lab.datasets.enwik8(bad, verify=False)
    other = write_zip(tmp_path / "other.zip", "readme.txt", raw)
    with pytest.raises(ValueError, match="not enwik8.zip"):
        keras_rda.lab.datasets.enwik8(other)


def test_corrupt_and_truncated_enwik6(data_dir, tmp_path):
    raw = bytearray((data_dir / "enwik6").read_bytes())
    (tmp_path / "short").mkdir()
    short = write(tmp_path / "short" / "enwik6", bytes(raw[:123_456]))
    with pytest.raises(ValueError, match="has 123,456 bytes but enwik6 has 1,000,000"):
        keras_rda.lab.datasets.enwik8(short)
    raw[500_000] ^= 0x01
    flipped = write(tmp_path / "enwik6", bytes(raw))
    with pytest.raises(ValueError, match="sha256 .* expected the published 369b6889"):
        keras_rda.lab.datasets.enwik8(flipped)


def test_full_size_file_with_wrong_content_fails_the_published_md5(tmp_path):
    """A 10^8-byte file named enwik8 that starts like it but is not it."""
    fake = bytearray(100_000_000)
    fake[: len(HEADER)] = HEADER
    path = write(tmp_path / "enwik8", bytes(fake))
    with pytest.raises(ValueError, match="md5 .* expected the published a1fa5ffd"):
        keras_rda.lab.datasets.enwik8(path)


def test_not_enwik8_and_too_small(tmp_path):
    other = write(tmp_path / "notes.txt", b"hello world " * 100)
    with pytest.raises(ValueError, match="not enwik8"):
        keras_rda.lab.datasets.enwik8(other)
    tiny = write(tmp_path / "tiny", HEADER + b"ab")
    with pytest.raises(ValueError, match="too few to split"):
        keras_rda.lab.datasets.enwik8(tiny)
    with pytest.raises(ValueError, match="`split_fractions`"):
        keras_rda.lab.datasets.enwik8(other, split_fractions=(0.5, 0.5, 0.5))


def test_split_argument_error():
    tokens = np.frombuffer(generated_bytes(1000), np.uint8)
    from keras_rda.lab.datasets.enwik8 import Enwik8

    splits = Enwik8(*split_tokens(tokens))
    with pytest.raises(ValueError, match="`split`"):
        splits.split("validation")


def test_path_object_roundtrip(tmp_path):
    p = write(tmp_path / "x", generated_bytes(1000))
    assert isinstance(keras_rda.lab.datasets.enwik8(str(p), verify=False).path, str)
    assert pathlib.Path(keras_rda.lab.datasets.enwik8(p, verify=False).path) == p
