"""Reading and writing replay files (JSON Lines, ``.gz`` optional), atomically."""

from __future__ import annotations

import ctypes
import gzip
import io
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json

from harness.errors import HarnessError, one_line
from harness.files import open_regular
from harness.games import REGISTRY
from harness.jsonlines import FAST, NEWLINE, slow_line
from harness.replay.records import Record

MAX_RECORD = 1 << 20  # bytes in one replay line, at most
# bytes of a replay file, and of its text once decompressed: a real game is tens of KB,
# a decompression bomb of valid records would otherwise fill the memory
MAX_REPLAY = 64 << 20
MAX_BLANK = 1000  # blank lines in one replay, at most (the referee writes none)
_BUFFER = 1 << 15  # bytes of records held before they are written


def sync_filesystem(folder: Path) -> None:
    """Flush the filesystem holding ``folder`` to disk (syncfs; all filesystems elsewhere)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(folder, os.O_RDONLY)
    except (OSError, AttributeError):
        os.sync()
        return
    try:
        if libc.syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


class ReplayWriter:
    """Writes records to ``path + '.part'`` and renames it into place on :meth:`commit`.

    A replay file therefore exists only once complete; an interrupted game leaves at
    most a ``.part`` file, which a resumed run overwrites. The records are held in
    memory until they fill a buffer (a whole game, most often), so that a game's file
    is created, written and renamed at its end, in one go.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.part = path.with_name(path.name + ".part")
        self._raw: IO[bytes] | None = None  # opened at the first flush, if a game overflows the buffer
        self._fh: IO[bytes] | None = None
        self._buffer = bytearray()  # one contiguous buffer: the lines' memory is reused

    def write(self, record: dict[str, Any]) -> None:
        try:
            self._buffer += FAST(record, option=NEWLINE)  # dumps_line(), inlined: once a decision
        except TypeError:
            self._buffer += slow_line(record)
        if len(self._buffer) >= _BUFFER:
            self._flush()

    def held(self) -> int:
        """Bytes of records held in memory, not yet in the file."""
        return len(self._buffer)

    def _open(self) -> IO[bytes]:
        try:  # the folder is there but for the first game
            raw = open(self.part, "wb")  # noqa: SIM115 - closed in commit()/discard()
        except FileNotFoundError:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            raw = open(self.part, "wb")  # noqa: SIM115
        fh: IO[bytes] = raw
        if self.path.suffix == ".gz":
            fh = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)  # type: ignore[assignment]
        self._raw, self._fh = raw, fh
        return fh

    def _flush(self) -> None:
        fh = self._fh if self._fh is not None else self._open()
        fh.write(self._buffer)
        self._buffer.clear()

    def commit(self, durable: bool = False) -> None:
        """Finish the file and move it into place (atomic against a killed process).

        ``durable`` also fsyncs it first, against a crash of the machine. An fsync costs
        milliseconds (10 µs a decision, more than the rest of the referee's work), so
        the league syncs once per job instead, before it commits the job's results.
        """
        if self._raw is None and self.path.suffix != ".gz":  # the whole game is in the buffer
            self._write_whole(durable)
            os.replace(self.part, self.path)
            return
        self._flush()
        assert self._raw is not None and self._fh is not None
        if self._fh is not self._raw:
            self._fh.close()
        self._raw.flush()
        if durable:
            os.fsync(self._raw.fileno())
        self._raw.close()
        os.replace(self.part, self.path)

    def _write_whole(self, durable: bool) -> None:
        """The buffer as the whole ``.part`` file: four system calls, no file object."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        try:
            fd = os.open(self.part, flags, 0o644)
        except FileNotFoundError:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.part, flags, 0o644)
        try:
            with memoryview(self._buffer) as data:
                done = 0
                while done < len(data):
                    done += os.write(fd, data[done:])
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        self._buffer.clear()

    def discard(self) -> None:
        if self._raw is not None:
            self._raw.close()
        self.part.unlink(missing_ok=True)


def _open(path: Path) -> tuple[IO[bytes], IO[bytes]]:
    """The replay file, opened only if it is a regular file of at most MAX_REPLAY bytes.

    A FIFO would block the reader forever, a device (``/dev/zero``) never end. Raises
    OSError, HarnessError for a file over the cap. Returns the file to read and the raw
    file (the same for an uncompressed replay), both to close.
    """
    raw = os.fdopen(open_regular(path), "rb")
    if os.fstat(raw.fileno()).st_size > MAX_REPLAY:
        raw.close()
        raise HarnessError(f"{path}: over {MAX_REPLAY >> 20} MiB: not a replay")
    if path.suffix == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw  # type: ignore[return-value]
    return raw, raw


def _records_of(path: str | Path, lineno: int, line: bytes) -> TypeAdapter[Any]:
    """The validator of the records of the game the header ``line`` names."""
    try:
        data = from_json(line)
    except ValueError as err:
        raise HarnessError(f"{path}:{lineno}: bad record: not JSON: {err}") from None
    if not isinstance(data, dict) or data.get("type") != "header":
        raise HarnessError(f"{path}: not a replay (the first record is not a header)")
    game = REGISTRY.get(str(data.get("game")))
    if game is None:
        known = ", ".join(sorted(REGISTRY))
        raise HarnessError(f"{path}:{lineno}: bad record: game: {data.get('game')!r} is not a known game ({known})")
    return game.wire.records_adapter


def iter_records(path: str | Path) -> Iterator[tuple[int, Record]]:
    """Yield (line number, record) from a replay; raise HarnessError naming the bad line."""
    path = Path(path)
    try:
        fh, raw = _open(path)
    except OSError as err:
        raise HarnessError(f"{path}: cannot open replay: {err.strerror}") from None
    with raw, fh:
        yield from _records_in(path, fh)


def iter_records_of(name: str, data: bytes) -> Iterator[tuple[int, Record]]:
    """Yield (line number, record) from a replay's text held in memory (a game of an export).

    ``name`` names it in errors (``export.zip[game 7]``). Raises HarnessError naming the bad line.
    """
    yield from _records_in(name, io.BytesIO(data))


def _records_in(path: str | Path, fh: IO[bytes]) -> Iterator[tuple[int, Record]]:
    lineno = blank = size = 0
    adapter: TypeAdapter[Any] | None = None  # the records of the header's game
    try:
        for lineno, line in enumerate(iter(lambda: fh.readline(MAX_RECORD + 1), b""), 1):
            if len(line) > MAX_RECORD:  # not a replay (a record is a few hundred bytes)
                raise HarnessError(f"{path}:{lineno}: a line longer than {MAX_RECORD} bytes")
            size += len(line)
            if size > MAX_REPLAY:  # a .gz that decompresses to more than any game writes
                raise HarnessError(f"{path}:{lineno}: over {MAX_REPLAY >> 20} MiB of records: not a replay")
            if not line.strip():
                blank += 1
                if blank > MAX_BLANK:  # a decompression bomb of newlines, not a replay
                    raise HarnessError(f"{path}:{lineno}: over {MAX_BLANK} blank lines: not a replay")
                continue
            if adapter is None:
                adapter = _records_of(path, lineno, line)
            try:
                yield lineno, adapter.validate_json(line)
            except ValidationError as err:
                raise HarnessError(f"{path}:{lineno}: bad record: {one_line(err, most=1)}") from None
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as err:
        raise HarnessError(f"{path}:{lineno + 1}: cannot read replay: {err}") from None


def read_prefix(path: str | Path, data: bytes | None = None) -> tuple[list[Record], HarnessError | None]:
    """The records before the first damaged line, and the error it gave (None if none).

    ``data``: the replay's text held in memory, ``path`` only naming it (a game of an
    export). Raise HarnessError when not even a header can be read: nothing to show.
    """
    records: list[Record] = []
    damage: HarnessError | None = None
    try:
        source = iter_records(path) if data is None else iter_records_of(str(path), data)
        records.extend(record for _, record in source)
    except HarnessError as err:
        damage = err
    if not records or records[0].type != "header":
        raise damage or HarnessError(f"{path}: not a replay (the first record is not a header)")
    return records, damage


def read_replay(path: str | Path, data: bytes | None = None) -> list[Record]:
    """Read a whole replay; raise HarnessError when it is damaged, empty or headless.

    ``data``: the replay's text held in memory, ``path`` only naming it (a game of an export).
    """
    source = iter_records(path) if data is None else iter_records_of(str(path), data)
    records = [record for _, record in source]
    if not records or records[0].type != "header":
        raise HarnessError(f"{path}: not a replay (the first record is not a header)")
    return records
