"""Reading damaged replays fails with one clear HarnessError naming the file and line."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.replay.io import ReplayWriter, iter_records, read_replay


@pytest.fixture
def plain(tmp_path: Path, play_fake) -> Path:
    path = tmp_path / "game.jsonl"
    play_fake(path, players=3, seed=4)
    return path


@pytest.fixture
def gz(tmp_path: Path, play_fake) -> Path:
    path = tmp_path / "game.jsonl.gz"
    play_fake(path, players=3, seed=4)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(HarnessError) as err:
        read_replay(path)
    return str(err.value)


def test_truncated_file(plain: Path) -> None:
    data = plain.read_bytes()
    lines = data.count(b"\n")
    plain.write_bytes(data[: len(data) - 20])  # cut inside the last record
    message = error_of(plain)
    assert message.startswith(f"{plain}:{lines}: bad record")


def test_garbage_line(plain: Path) -> None:
    lines = plain.read_bytes().splitlines(keepends=True)
    lines.insert(2, b"this is not json\n")
    plain.write_bytes(b"".join(lines))
    assert error_of(plain).startswith(f"{plain}:3: bad record")


def test_unknown_field(plain: Path) -> None:
    lines = plain.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"type":"round_start"', b'"type":"round_start","secret":1')
    plain.write_bytes(b"".join(lines))
    message = error_of(plain)
    assert message.startswith(f"{plain}:2: bad record") and "secret" in message


def test_not_utf8(plain: Path) -> None:
    lines = plain.read_bytes().splitlines(keepends=True)
    lines[3] = b"\xff\xfe\n"
    plain.write_bytes(b"".join(lines))
    assert error_of(plain).startswith(f"{plain}:4: bad record")


def test_blank_lines_are_skipped_and_numbered(plain: Path) -> None:
    lines = plain.read_bytes().splitlines(keepends=True)
    plain.write_bytes(b"\n".join(lines))  # a blank line between every two records
    numbers = [n for n, _ in iter_records(plain)]
    assert numbers == list(range(1, 2 * len(lines), 2))


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.jsonl.gz"])
def test_empty_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"" if name.endswith("l") else gzip.compress(b""))
    assert error_of(path) == f"{path}: not a replay (the first record is not a header)"


def test_zero_byte_gz(tmp_path: Path) -> None:
    path = tmp_path / "zero.jsonl.gz"
    path.write_bytes(b"")
    assert str(path) in error_of(path)


def test_headless_file(plain: Path) -> None:
    lines = plain.read_bytes().splitlines(keepends=True)
    plain.write_bytes(b"".join(lines[1:]))
    assert error_of(plain) == f"{plain}: not a replay (the first record is not a header)"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    assert error_of(path) == f"{path}: cannot open replay: No such file or directory"


def test_truncated_gzip(gz: Path) -> None:
    data = gz.read_bytes()
    gz.write_bytes(data[: len(data) // 2])
    message = error_of(gz)
    assert re.match(rf"{re.escape(str(gz))}:\d+: cannot read replay", message), message


@pytest.mark.parametrize("where", [0.3, 0.6, 0.99])
def test_corrupted_gzip(gz: Path, where: float) -> None:
    data = bytearray(gz.read_bytes())
    start = int(len(data) * where) - 8
    for k in range(start, start + 8):
        data[k] ^= 0x5A
    gz.write_bytes(bytes(data))
    message = error_of(gz)
    assert message.startswith(f"{gz}:"), message
    assert "cannot read replay" in message or "bad record" in message


def test_not_gzip_at_all(gz: Path) -> None:
    gz.write_bytes(b'{"type":"header"}\n')
    message = error_of(gz)
    assert message.startswith(f"{gz}:1: cannot read replay"), message


def test_writer_commits_atomically(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "x.jsonl"
    writer = ReplayWriter(path)
    writer.write({"type": "header"})
    assert not path.exists()
    writer.commit()
    assert path.read_bytes() == b'{"type":"header"}\n' and not writer.part.exists()


def test_writer_discard_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl.gz"
    writer = ReplayWriter(path)
    for k in range(300):  # more than one flush
        writer.write({"n": k})
    writer.discard()
    assert list(tmp_path.iterdir()) == []


def test_gzip_output_is_reproducible(tmp_path: Path, play_fake) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    play_fake(tmp_path / "a" / "g.jsonl.gz", seed=8)
    play_fake(tmp_path / "b" / "g.jsonl.gz", seed=8)
    assert (tmp_path / "a" / "g.jsonl.gz").read_bytes() == (tmp_path / "b" / "g.jsonl.gz").read_bytes()


def test_a_file_without_newlines_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "zero.jsonl"
    path.write_bytes(b"\0" * (3 << 20))
    with pytest.raises(HarnessError, match=r"zero\.jsonl:1: a line longer than"):
        read_replay(path)
