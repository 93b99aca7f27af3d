"""Snapshots as tar streams: a bubblewrap build's result, and a snapshot moved as bytes.

:func:`unpack_stream` reads a tar with the snapshot's caps and rules (regular files,
folders, in-folder links; nothing else); :func:`pack` and :func:`unpack` carry a
snapshot elsewhere (a cluster's worker) and verify it against its digest there.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
from pathlib import Path
from typing import IO

from harness.bots.snapshot import (
    DEFAULT_CAPS,
    FOLDER_MODE,
    Caps,
    Entry,
    SnapshotStore,
    Tally,
    check_links,
    digest_of,
    file_mode,
    remove_tree,
    scan,
    shown,
    write_all,
)
from harness.errors import HarnessError

_SLACK = 4 << 20  # bytes of a tar read ahead of the contents unpacked (buffers), and its padding
_TAR_CHUNK = 1 << 16
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class _Budget(io.RawIOBase):
    """A stream that refuses to deliver much more than the files' contents (tar headers are small).

    ``tarfile`` reads a whole pax or GNU long-name header into memory: without this a
    header claiming gigabytes would be read whole.
    """

    def __init__(self, stream: IO[bytes], who: str, caps: Caps) -> None:
        super().__init__()
        self.stream, self.who = stream, who
        self.contents = 0  # bytes of file contents delivered
        self.members = 0
        self.total = 0
        self.caps = caps

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.stream.read(min(len(buffer), 1 << 16))
        self.total += len(data)
        overhead = self.total - self.contents
        if overhead > _SLACK + 8192 * self.members:
            raise HarnessError(f"{self.who}: its build's result is not a plain archive of files (oversized tar headers)")
        if self.contents > self.caps.bytes + _SLACK:
            raise HarnessError(f"{self.who}: its folder holds over {self.caps.bytes >> 20} MB")
        buffer[: len(data)] = data
        return len(data)


def unpack_stream(stream: IO[bytes], dest: Path, who: str, caps: Caps = DEFAULT_CAPS) -> list[Entry]:
    """Unpack a tar from ``stream`` into the empty folder ``dest`` with the caps; return its entries.

    Regular files, folders and symbolic links only, each name relative and below a
    folder the archive made before it; the result is sealed read-only. Raises
    HarnessError (one line starting with ``who``) for anything else.
    """
    budget = _Budget(stream, who, caps)
    tally = Tally(who, caps)
    entries: list[Entry] = []
    kinds: dict[str, str] = {"": "d"}
    folders: list[str] = []
    try:
        with tarfile.open(fileobj=io.BufferedReader(budget), mode="r|") as archive:
            for member in archive:
                budget.members += 1
                path = _member_path(member.name, who)
                if path is None:
                    continue
                if path in kinds:
                    raise HarnessError(f"{who}: {shown(path)} is twice in its build's result")
                if kinds.get(path.rpartition("/")[0]) != "d":
                    raise HarnessError(f"{who}: {shown(path)} is not inside a folder of its build's result")
                target = dest / path
                if member.isdir():
                    tally.entry(path, "d")
                    os.mkdir(target, 0o755)
                    folders.append(path)
                    entries.append(Entry("d", path))
                elif member.isreg():
                    tally.entry(path, "f")
                    entries.append(_unpack_file(archive, member, target, path, tally, budget))
                elif member.issym():
                    tally.entry(path, "l")
                    os.symlink(member.linkname, target)
                    entries.append(Entry("l", path, payload=member.linkname))
                else:
                    what = "a hard link" if member.islnk() else "a FIFO, device or other special file"
                    raise HarnessError(f"{who}: {shown(path)} is {what}: a bot folder holds files, folders and links only")
                kinds[path] = entries[-1].kind
    except (tarfile.TarError, EOFError) as err:
        raise HarnessError(f"{who}: its build's result is not a complete tar archive ({err})") from None
    except OSError as err:
        raise HarnessError(f"{who}: cannot unpack its build's result: {err.strerror or err}") from None
    check_links(entries, who)
    for path in reversed(folders):
        os.chmod(dest / path, FOLDER_MODE)
    os.chmod(dest, FOLDER_MODE)
    return entries


def _member_path(name: str, who: str) -> str | None:
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if name.startswith("/") or ".." in parts:
        raise HarnessError(f"{who}: {shown(name)} in its build's result is outside its folder")
    return "/".join(parts) or None


def _unpack_file(
    archive: tarfile.TarFile, member: tarfile.TarInfo, target: Path, path: str, tally: Tally, budget: _Budget
) -> Entry:
    source = archive.extractfile(member)
    assert source is not None  # a regular member always has a file object
    executable = bool(member.mode & 0o111)
    digest = hashlib.sha256()
    size = 0
    out = os.open(target, _WRITE, 0o644)
    try:
        while chunk := source.read(_TAR_CHUNK):
            size += len(chunk)
            budget.contents += len(chunk)
            tally.grow(len(chunk))
            digest.update(chunk)
            write_all(out, chunk)
        os.fchmod(out, file_mode(executable, True))
    finally:
        os.close(out)
    return Entry("f", path, executable, digest.hexdigest(), size)


def pack(snapshot: Path) -> bytes:
    """A snapshot as bytes (an uncompressed tar, the same bytes for the same snapshot); raises HarnessError."""
    who = f"snapshot {snapshot}"
    entries = scan(snapshot, who)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for entry in entries:
            info = tarfile.TarInfo(entry.path)
            info.mtime = 0
            if entry.kind == "d":
                info.type, info.mode = tarfile.DIRTYPE, 0o555
                archive.addfile(info)
            elif entry.kind == "l":
                info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, entry.payload
                archive.addfile(info)
            else:
                with open(snapshot / entry.path, "rb") as fh:
                    info.size = os.fstat(fh.fileno()).st_size
                    info.mode = file_mode(entry.executable, True)
                    archive.addfile(info, fh)
    return buffer.getvalue()


def unpack(data: bytes, store: Path, digest: str) -> Path:
    """Unpack packed bytes into the snapshot store ``store`` and verify them against ``digest``.

    Returns the snapshot's folder (``store/<digest>``). Raises HarnessError when the
    bytes break a cap or rule, or are not the snapshot ``digest`` names.
    """
    if not _DIGEST.match(digest):
        raise HarnessError(f"snapshot {digest!r}: not a snapshot digest (64 hex digits)")
    snapshots = SnapshotStore(store)
    if snapshots.has(digest):
        return snapshots.path(digest)
    staging = snapshots.staging()
    try:
        entries = unpack_stream(io.BytesIO(data), staging, f"snapshot {digest[:12]}")
        found = digest_of(entries)
        if found != digest:
            raise HarnessError(f"snapshot {digest[:12]}: the bytes received are snapshot {found[:12]}, not it")
        return snapshots.publish(staging, digest)
    except BaseException:
        remove_tree(staging)
        raise


__all__ = ["pack", "unpack", "unpack_stream"]
