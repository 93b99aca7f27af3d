"""LineReader over a real os.pipe(): splitting, limits, EOF, deadlines, the stderr side channel."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator

import pytest

from harness.errors import BotCrashed, BotFault, BotTimeout, FaultKind
from harness.protocol.framing import MAX_LINE, LineReader

_F_SETPIPE_SZ = 1031
_CHUNK = 1 << 16  # what LineReader reads at a time


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    r, w = os.pipe()
    os.set_blocking(r, False)
    yield r, w
    for fd in (r, w):
        with contextlib.suppress(OSError):  # a test may have closed one end
            os.close(fd)


def soon(seconds: float = 2.0) -> float:
    return time.monotonic() + seconds


def test_a_line_split_across_writes_is_joined(pipe: tuple[int, int]) -> None:
    r, w = pipe
    reader = LineReader(r)
    os.write(w, b'{"type":"act')
    with pytest.raises(BotTimeout):  # half a line is not a line
        reader.readline(soon(0.05))
    os.write(w, b'ion","id":1}\n')
    assert reader.readline(soon()) == b'{"type":"action","id":1}'


def test_several_lines_in_one_write(pipe: tuple[int, int]) -> None:
    r, w = pipe
    reader = LineReader(r)
    os.write(w, b"one\ntwo\n\nthree\nfour")
    assert reader.readline(soon()) == b"one"
    assert reader.pending()
    assert [reader.readline(soon()) for _ in range(3)] == [b"two", b"", b"three"]
    assert not reader.pending()
    os.write(w, b"!\n")
    assert reader.readline(soon()) == b"four!"


def test_a_line_of_exactly_the_limit_is_accepted_and_one_more_byte_is_not(pipe: tuple[int, int]) -> None:
    r, w = pipe
    reader = LineReader(r, limit=100)
    os.write(w, b"a" * 100 + b"\n" + b"b" * 101 + b"\n")
    assert reader.readline(soon()) == b"a" * 100
    with pytest.raises(BotFault) as info:
        reader.readline(soon())
    assert info.value.kind is FaultKind.MALFORMED


def test_an_endless_line_is_malformed_after_reading_about_the_limit(pipe: tuple[int, int]) -> None:
    r, w = pipe
    fcntl.fcntl(w, _F_SETPIPE_SZ, 1 << 20)  # fewer round trips; the bound below still holds
    os.set_blocking(w, False)
    reader = LineReader(r)
    written = 0
    block = b"x" * _CHUNK
    fault = None
    for _ in range(200):  # a 12 MiB line at most; the reader must give up long before
        try:
            while True:
                written += os.write(w, block)
        except BlockingIOError:
            pass
        try:
            reader.readline(soon(0.05))
        except BotTimeout:
            continue
        except BotFault as err:
            fault = err
            break
    assert fault is not None and fault.kind is FaultKind.MALFORMED
    assert "exceeds" in fault.detail
    left = 0
    try:
        while chunk := os.read(r, 1 << 20):
            left += len(chunk)
    except BlockingIOError:
        pass
    consumed = written - left
    assert MAX_LINE < consumed <= MAX_LINE + _CHUNK


def test_eof_is_a_crash_after_the_complete_lines(pipe: tuple[int, int]) -> None:
    r, w = pipe
    reader = LineReader(r)
    os.write(w, b"last\npartial")
    os.close(w)
    assert reader.readline(soon()) == b"last"
    with pytest.raises(BotCrashed):
        reader.readline(soon())
    with pytest.raises(BotCrashed):  # and stays so
        reader.readline(soon())


def test_silence_times_out_at_the_deadline(pipe: tuple[int, int]) -> None:
    r, _ = pipe
    reader = LineReader(r)
    start = time.monotonic()
    with pytest.raises(BotTimeout):
        reader.readline(start + 0.2)
    assert 0.19 <= time.monotonic() - start < 5.0


def test_a_past_deadline_times_out_unless_a_line_is_already_buffered(pipe: tuple[int, int]) -> None:
    r, w = pipe
    reader = LineReader(r)
    os.write(w, b"a\nb\n")
    assert reader.readline(soon()) == b"a"
    assert reader.readline(time.monotonic() - 1) == b"b"
    with pytest.raises(BotTimeout):
        reader.readline(time.monotonic() - 1)


def test_the_side_channel_is_drained_while_waiting(pipe: tuple[int, int]) -> None:
    r, w = pipe
    er, ew = os.pipe()
    os.set_blocking(er, False)
    os.set_blocking(ew, False)
    drained = bytearray()

    def drain() -> bool:
        try:
            chunk = os.read(er, _CHUNK)
        except BlockingIOError:
            return True
        drained.extend(chunk)
        return bool(chunk)

    try:
        reader = LineReader(r, side={er: drain})
        try:  # fill the side pipe: a writer blocked on it would deadlock a naive reader
            while True:
                os.write(ew, b"e" * 4096)
        except BlockingIOError:
            pass
        with pytest.raises(BotTimeout):
            reader.readline(soon(0.3))
        assert len(drained) >= 4096 * 8
        os.write(w, b"ok\n")
        assert reader.readline(soon()) == b"ok"
    finally:
        os.close(er)
        os.close(ew)


def test_a_closed_side_channel_is_dropped_not_spun_on(pipe: tuple[int, int]) -> None:
    r, _ = pipe
    er, ew = os.pipe()
    os.set_blocking(er, False)
    calls = 0

    def drain() -> bool:
        nonlocal calls
        calls += 1
        try:
            return bool(os.read(er, _CHUNK))
        except BlockingIOError:
            return True

    try:
        reader = LineReader(r, side={er: drain})
        os.close(ew)
        with pytest.raises(BotTimeout):
            reader.readline(soon(0.2))
        assert calls == 1
    finally:
        os.close(er)
