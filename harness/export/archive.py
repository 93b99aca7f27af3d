"""The one-file export: a ZIP archive of a league's replays with an index.

Why ZIP: it is a documented format (PKWARE's APPNOTE) that every system opens
(``unzip``, Python's zipfile, any language), each member is compressed on its own, and
its central directory is an index: one game is read without decompressing the others
(``replay FILE --game N``), and ``unzip`` gives back ordinary replay files. The
members are the league's replays under their own relative paths (``replays/…/game-
000001.jsonl``, decompressed if the league kept them as ``.jsonl.gz``) and
``index.jsonl`` (see :mod:`harness.export.model`): the league's config, bots,
revisions and timing, then a line per game with the results the league recorded and
each seat's time used. The secret is left out: an export is made to be shared.

Reading is capped and never blocks: a regular file only (``open_regular``), at most
``MAX_EXPORT`` bytes and ``MAX_MEMBERS`` members, every member read at most up to its
cap however large its header says it is (a decompression bomb stops there).
"""

from __future__ import annotations

import os
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from harness.errors import HarnessError, one_line
from harness.export.model import INDEX_ADAPTER, INDEX_NAME, MEMBER_PATTERN, ExportGame, ExportHeader
from harness.files import open_regular
from harness.replay.io import MAX_RECORD, MAX_REPLAY

MAX_EXPORT = 64 << 30  # bytes of an export file: a million games are a few GiB
MAX_MEMBERS = 10_000_001  # the index and up to ten million replays
MAX_INDEX = 4 << 30  # bytes of the index once decompressed (a game's line is a few hundred)
ZIP_MAGIC = b"PK\x03\x04"
_MEMBER = re.compile(MEMBER_PATTERN)
_EPOCH = (1980, 1, 1, 0, 0, 0)
# what zipfile raises for a damaged archive: a bad CRC or header, a truncated or corrupt
# deflate stream, an unknown "version needed", encryption, a record past the end
_DAMAGE = (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError, ValueError, zlib.error, struct.error)  # every member's date: the same league exports to the same bytes


def is_export(path: Path) -> bool:
    """True when ``path`` is a regular file that starts as a ZIP archive does (never blocks)."""
    try:
        fd = open_regular(path)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        return fh.read(4) == ZIP_MAGIC


@dataclass(frozen=True)
class Export:
    """An export opened for reading: its header and game index, and its archive (to close)."""

    path: Path
    header: ExportHeader
    games: tuple[ExportGame, ...]
    archive: zipfile.ZipFile
    raw: IO[bytes]  # the file the archive reads (a ZipFile given a file object leaves it open)

    def close(self) -> None:
        self.archive.close()
        self.raw.close()

    def __enter__(self) -> Export:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def name_of(self, game: ExportGame) -> str:
        """How errors and verdicts name one game: ``FILE[game N]``."""
        return f"{self.path}[game {game.game}]"

    def game(self, number: int) -> ExportGame:
        """The game with id ``number``; raise HarnessError naming the ids there are."""
        for game in self.games:
            if game.game == number:
                return game
        ids = f"{self.games[0].game}-{self.games[-1].game}" if self.games else "none"
        raise HarnessError(f"{self.path}: --game {number}: no such game in this export (its games: {ids})")

    def replay_text(self, game: ExportGame) -> bytes:
        """The replay of ``game`` as it was written (JSON lines); raise HarnessError naming it."""
        return _member(self.archive, self.path, game.replay, MAX_REPLAY)


def _member(archive: zipfile.ZipFile, path: Path, name: str, cap: int) -> bytes:
    """The member ``name`` decompressed, at most ``cap`` bytes; raise HarnessError for more or damage."""
    try:
        with archive.open(name) as fh:
            data = fh.read(cap + 1)
    except KeyError:
        raise HarnessError(f"{path}: {name}: not in the archive (the index names it)") from None
    except _DAMAGE as err:
        raise HarnessError(f"{path}: {name}: cannot read it: {err}") from None
    if len(data) > cap:
        raise HarnessError(f"{path}: {name}: over {cap >> 20} MiB once decompressed: not an export member")
    return data


def open_export(path: Path) -> Export:
    """Open the export at ``path`` and read its index; raise HarnessError naming what is wrong.

    Only a regular file, at most MAX_EXPORT bytes; the index is checked line by line
    against its schema, and every game's replay member must be in the archive.
    """
    try:
        raw = os.fdopen(open_regular(path), "rb")
    except OSError as err:
        raise HarnessError(f"{path}: cannot open the export: {err.strerror or err}") from None
    try:
        if os.fstat(raw.fileno()).st_size > MAX_EXPORT:
            raise HarnessError(f"{path}: over {MAX_EXPORT >> 30} GiB: not an export")
        try:
            archive = zipfile.ZipFile(raw)
        except _DAMAGE as err:
            raise HarnessError(f"{path}: not an export (not a readable ZIP archive: {err})") from None
    except BaseException:
        raw.close()
        raise
    try:
        names = archive.namelist()
        if len(names) > MAX_MEMBERS:
            raise HarnessError(f"{path}: over {MAX_MEMBERS} members: not an export")
        header, games = _read_index(archive, path, set(names))
    except BaseException:
        archive.close()
        raw.close()
        raise
    return Export(path, header, tuple(games), archive, raw)


def _read_index(archive: zipfile.ZipFile, path: Path, names: set[str]) -> tuple[ExportHeader, list[ExportGame]]:
    if INDEX_NAME not in names:
        raise HarnessError(f"{path}: not an export (no {INDEX_NAME} in the archive)")
    where = f"{path}: {INDEX_NAME}"
    header: ExportHeader | None = None
    games: list[ExportGame] = []
    seen: set[int] = set()
    try:
        with archive.open(INDEX_NAME) as fh:
            size = 0
            for lineno, line in enumerate(iter(lambda: fh.readline(MAX_RECORD + 1), b""), 1):
                size += len(line)
                if len(line) > MAX_RECORD or size > MAX_INDEX:
                    raise HarnessError(f"{where}:{lineno}: a line over {MAX_RECORD} bytes or an index over {MAX_INDEX >> 30} GiB")
                try:
                    record = INDEX_ADAPTER.validate_json(line)
                except ValidationError as err:
                    raise HarnessError(f"{where}:{lineno}: {one_line(err, most=1)}") from None
                if header is None:
                    if not isinstance(record, ExportHeader):
                        raise HarnessError(f"{where}:{lineno}: the first line is not the export record")
                    header = record
                    continue
                if not isinstance(record, ExportGame):
                    raise HarnessError(f"{where}:{lineno}: a second export record")
                if record.game in seen:
                    raise HarnessError(f"{where}:{lineno}: game {record.game} is listed twice")
                if record.replay not in names or not _MEMBER.match(record.replay):
                    raise HarnessError(f"{where}:{lineno}: game {record.game}: its replay {record.replay!r} is not in the archive")
                seen.add(record.game)
                games.append(record)
    except _DAMAGE as err:
        raise HarnessError(f"{where}: cannot read it: {err}") from None
    if header is None:
        raise HarnessError(f"{where}: empty: not an export")
    if header.games != len(games):
        raise HarnessError(f"{where}: the export record says {header.games} games, the index lists {len(games)}")
    return header, games


class ExportWriter:
    """Writes an export to ``path + '.part'`` and renames it into place on :meth:`commit`.

    Raises HarnessError (via :func:`harness.files.check_output`) for an output that is a
    FIFO, a device or a folder, before anything is written.
    """

    def __init__(self, path: Path) -> None:
        from harness.files import check_output

        check_output(path)
        self.path = path
        self.part = path.with_name(path.name + ".part")
        check_output(self.part)
        self._fh: IO[bytes] = open(self.part, "wb")  # noqa: SIM115 - closed in commit()/discard()
        self._zip = zipfile.ZipFile(self._fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6)

    def add(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, date_time=_EPOCH)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        self._zip.writestr(info, data)

    def add_lines(self, name: str, lines: Iterator[bytes]) -> None:
        info = zipfile.ZipInfo(name, date_time=_EPOCH)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        with self._zip.open(info, "w", force_zip64=True) as out:
            for line in lines:
                out.write(line)

    def commit(self) -> Path:
        self._zip.close()
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        os.replace(self.part, self.path)
        return self.path

    def discard(self) -> None:
        self._zip.close()
        self._fh.close()
        self.part.unlink(missing_ok=True)


def dumps(record: Any) -> bytes:
    """One index line: a model as compact JSON with a newline."""
    return bytes(record.model_dump_json(exclude_none=False), "utf-8") + b"\n"


__all__ = ["MAX_EXPORT", "Export", "ExportWriter", "dumps", "is_export", "open_export"]
