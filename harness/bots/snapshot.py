"""A bot as a sealed snapshot: a read-only, content-addressed copy of its folder.

A snapshot holds every entry of a bot folder (``__pycache__`` and dotfiles too):
regular files (contents and the executable bit), folders, and symbolic links that
resolve inside the folder. FIFOs, devices, sockets and links out of the folder are
refused, as is a folder over the caps (:data:`DEFAULT_CAPS`). Every walk is
iterative and file-descriptor relative: no recursion, no path length limit, no
symbolic link followed.

The digest covers the names, kinds, executable bits, contents and link targets; the
snapshot lives at ``<store>/<digest>/`` with files 0444 or 0555 and folders 0555, so
what runs is what was measured. harness.bots.packing moves a snapshot as bytes (a
tar) and verifies it on arrival.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError

# A sealed folder stays writable by its owner, its files do not: under bubblewrap the
# snapshot is a read-only mount whatever its modes, and without it a bot running as the
# same user could chmod a folder back; 0755 lets `rm -rf OUT` work for an ordinary user.
FOLDER_MODE = 0o755

DIGEST_TAG = b"llama-snapshot-1\0"
INDEX = "index.json"
INDEX_CAP = 4 << 20  # bytes: the store's index is one short line per build
_CHUNK = 1 << 20
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_LINK_HOPS = 40  # the kernel's own limit on symbolic links in one lookup


@dataclass(frozen=True)
class Caps:
    """The most a bot folder (and so a snapshot) may hold."""

    depth: int = 64  # folder levels below the bot folder
    files: int = 20_000  # regular files
    entries: int = 50_000  # inodes: files, folders and symbolic links
    bytes: int = 4 << 30  # file contents in all


DEFAULT_CAPS = Caps()


@dataclass(frozen=True)
class Entry:
    """One entry of a snapshot: ``kind`` is ``f`` (file), ``d`` (folder) or ``l`` (link)."""

    kind: str
    path: str  # relative, "/"-separated
    executable: bool = False
    payload: str = ""  # a file's sha256, a link's target
    size: int = 0  # a file's bytes (not part of the digest: the contents are)


def shown(path: str) -> str:
    """A path for a one-line message: quoted (a newline in a name stays escaped), and not too long."""
    return repr(path if len(path) <= 120 else f"{path[:60]}...{path[-40:]}")


class Tally:
    """Counts a folder's entries as they are met; raises HarnessError at the first cap passed."""

    def __init__(self, who: str, caps: Caps) -> None:
        self.who, self.caps = who, caps
        self.files = self.entries = self.bytes = 0

    def entry(self, path: str, kind: str) -> None:
        depth = path.count("/") + (kind == "d")
        if depth > self.caps.depth:
            raise HarnessError(f"{self.who}: its folder is over {self.caps.depth} levels deep (at {shown(path)})")
        self.entries += 1
        self.files += kind == "f"
        if self.entries > self.caps.entries:
            raise HarnessError(f"{self.who}: its folder holds over {self.caps.entries} files, folders and links")
        if self.files > self.caps.files:
            raise HarnessError(f"{self.who}: its folder holds over {self.caps.files} files")

    def grow(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.caps.bytes:
            raise HarnessError(f"{self.who}: its folder holds over {self.caps.bytes >> 20} MB")


def digest_of(entries: list[Entry]) -> str:
    """The snapshot digest of ``entries``: names, kinds, executable bits, contents, link targets."""
    digest = hashlib.sha256(DIGEST_TAG)
    for entry in sorted(entries, key=lambda e: os.fsencode(e.path)):
        mark = f"{entry.kind}{'x' if entry.executable else '-'}:".encode()
        digest.update(mark + os.fsencode(entry.path) + b"\0" + os.fsencode(entry.payload) + b"\0")
    return digest.hexdigest()


def check_links(entries: list[Entry], who: str) -> None:
    """Raise HarnessError for a symbolic link that does not resolve inside the folder.

    Resolved here, on the entries, as the kernel would resolve it (``..`` after a link
    leaves the link's target, not its name), so the answer does not depend on where the
    folder sits: a link that would leave the folder at any step is refused.
    """
    links = {entry.path: entry.payload for entry in entries if entry.kind == "l"}
    for path, target in links.items():
        if not _inside(path, links):
            raise HarnessError(f"{who}: {shown(path)} is a symbolic link out of its folder (-> {shown(target)})")


def _inside(path: str, links: dict[str, str]) -> bool:
    todo = list(reversed(path.split("/")))
    done: list[str] = []
    hops = 0
    while todo:
        part = todo.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return False
            done.pop()
            continue
        here = "/".join([*done, part])
        if here in links:
            hops += 1
            target = links[here]
            if hops > _LINK_HOPS or target.startswith("/"):
                return False
            todo.extend(reversed(target.split("/")))
            continue
        done.append(part)
    return True


class _Open:
    """An open folder being walked, and its copy; closed once its last subfolder is opened."""

    __slots__ = ("fd", "out", "pending")

    def __init__(self, fd: int, out: int | None) -> None:
        self.fd, self.out, self.pending = fd, out, 0

    def release(self) -> None:
        self.pending -= 1
        if self.pending <= 0:
            self.close()

    def close(self) -> None:
        for fd in (self.fd, self.out):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.fd = self.out = -1


def scan(folder: Path, who: str, caps: Caps = DEFAULT_CAPS, dest: Path | None = None, sealed: bool = True) -> list[Entry]:
    """Walk ``folder`` (and copy it into the empty folder ``dest``); return its entries.

    Copies are made read-only unless ``sealed`` is False (a copy to build in). Raises
    HarnessError, one line starting with ``who``, for anything a snapshot may not hold,
    a cap passed, a link out of the folder, or a file that cannot be read.
    """
    try:
        top = _Open(os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), None)
    except OSError as err:
        raise HarnessError(f"{who}: cannot read its folder {folder}: {err.strerror or err}") from None
    opened = [top]
    try:
        if dest is not None:
            top.out = os.open(dest, _DIR)
        entries = _walk(top, opened, Tally(who, caps), sealed)
    except OSError as err:
        where = f" ({err.filename})" if err.filename else ""
        raise HarnessError(f"{who}: cannot copy its folder {folder}{where}: {err.strerror or err}") from None
    finally:
        for folder_open in opened:
            folder_open.close()
    check_links(entries, who)
    if dest is not None and sealed:
        os.chmod(dest, FOLDER_MODE)
    return entries


def _walk(top: _Open, opened: list[_Open], tally: Tally, sealed: bool) -> list[Entry]:
    entries: list[Entry] = []
    stack: list[tuple[_Open | None, str, str]] = [(None, "", "")]  # (parent, name, relative path)
    while stack:
        parent, name, rel = stack.pop()
        if parent is None:
            here = top
        else:
            out = None
            if parent.out is not None:
                out = os.open(name, _DIR, dir_fd=parent.out)
            here = _Open(os.open(name, _DIR, dir_fd=parent.fd), out)
            opened.append(here)
            parent.release()
        subfolders: list[tuple[str, str]] = []
        for child in sorted(os.listdir(here.fd)):
            path = f"{rel}{child}"
            info = os.stat(child, dir_fd=here.fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                tally.entry(path, "d")
                entries.append(Entry("d", path))
                if here.out is not None:
                    os.mkdir(child, 0o755, dir_fd=here.out)
                subfolders.append((child, path))
            elif stat.S_ISREG(info.st_mode):
                tally.entry(path, "f")
                entries.append(_copy_file(here, child, path, tally, sealed))
            elif stat.S_ISLNK(info.st_mode):
                tally.entry(path, "l")
                target = os.readlink(child, dir_fd=here.fd)
                entries.append(Entry("l", path, payload=target))
                if here.out is not None:
                    os.symlink(target, child, dir_fd=here.out)
            else:
                raise HarnessError(f"{tally.who}: {shown(path)} is {_kind(info.st_mode)}: a bot folder holds files, folders and links only")
        if here.out is not None and sealed:
            os.chmod(here.out, FOLDER_MODE)
        here.pending = len(subfolders)
        if not subfolders:
            here.close()
        for child, path in reversed(subfolders):
            stack.append((here, child, f"{path}/"))
    return entries


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _copy_file(here: _Open, name: str, path: str, tally: Tally, sealed: bool) -> Entry:
    # O_NONBLOCK: a FIFO swapped in since the stat opens without blocking, and fstat refuses it
    fd = os.open(name, _READ, dir_fd=here.fd)
    out = -1
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise HarnessError(f"{tally.who}: {shown(path)} is {_kind(info.st_mode)}: a bot folder holds files, folders and links only")
        executable = bool(info.st_mode & 0o111)
        if here.out is not None:
            out = os.open(name, _WRITE, 0o644, dir_fd=here.out)
        digest = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, _CHUNK):
            size += len(chunk)
            tally.grow(len(chunk))
            digest.update(chunk)
            if out >= 0:
                write_all(out, chunk)
        if out >= 0:
            os.fchmod(out, file_mode(executable, sealed))
        return Entry("f", path, executable, digest.hexdigest(), size)
    finally:
        os.close(fd)
        if out >= 0:
            os.close(out)


def file_mode(executable: bool, sealed: bool) -> int:
    if sealed:
        return 0o555 if executable else 0o444
    return 0o755 if executable else 0o644


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# -- removing ------------------------------------------------------------------------


def remove_tree(path: Path | str) -> None:
    """Remove ``path`` and all it holds, read-only folders too, however deep; never raises.

    One folder open at a time (it climbs back with ``..``), so depth costs no file
    descriptors and no recursion (``shutil.rmtree`` recurses, and cannot remove a
    read-only snapshot as a non-root user).
    """
    with contextlib.suppress(OSError):
        _remove(os.fspath(path))


def _remove(path: str) -> None:
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        os.unlink(path)
        return
    os.chmod(path, 0o700)
    fd = os.open(path, _DIR)
    names: list[str] = []
    try:
        while True:
            child = None
            with os.scandir(fd) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False):
                        child = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if child is not None:
                os.chmod(child, 0o700, dir_fd=fd)
                deeper = os.open(child, _DIR, dir_fd=fd)
                os.close(fd)
                fd = deeper
                names.append(child)
                continue
            if not names:
                break
            up = os.open("..", _DIR, dir_fd=fd)
            os.close(fd)
            fd = up
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(path)


# -- the store -----------------------------------------------------------------------


class SnapshotStore:
    """A folder of snapshots by digest, and an index from a source (and build) to its snapshot."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()  # a bot's folder is an absolute path (bubblewrap binds it)

    def path(self, digest: str) -> Path:
        return self.root / digest

    def has(self, digest: str) -> bool:
        return bool(digest) and self.path(digest).is_dir()

    def staging(self) -> Path:
        """A new empty folder beside the snapshots (renamed into place by :meth:`publish`)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=".staging-", dir=self.root))
        except OSError as err:
            raise HarnessError(f"{self.root}: cannot create a snapshot here: {err.strerror or err}") from None

    def publish(self, staging: Path, digest: str) -> Path:
        """Move the sealed ``staging`` folder to ``<root>/<digest>`` (or drop it: that snapshot exists)."""
        target = self.path(digest)
        if target.is_dir():
            remove_tree(staging)
            return target
        os.chmod(staging, FOLDER_MODE)
        try:
            os.rename(staging, target)  # the same parent: no write permission on staging needed
        except OSError:
            remove_tree(staging)
            if not target.is_dir():
                raise
        return target

    def _index(self) -> dict[str, str]:
        try:
            with open(self.root / INDEX, "rb") as fh:
                data = json.loads(fh.read(INDEX_CAP))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def lookup(self, key: str) -> str | None:
        """The snapshot digest recorded for ``key``, if that snapshot is still here."""
        digest = self._index().get(key)
        return digest if digest is not None and self.has(digest) else None

    def remember(self, key: str, digest: str) -> None:
        """Record ``key -> digest`` (written atomically)."""
        index = self._index()
        index[key] = digest
        part = self.root / f".{INDEX}.part"
        with contextlib.suppress(OSError):
            part.write_text(json.dumps(index, sort_keys=True, indent=0) + "\n", encoding="utf-8")
            os.replace(part, self.root / INDEX)

    def staged(self) -> Iterator[Path]:
        """Staging folders left by an interrupted run."""
        if self.root.is_dir():
            yield from self.root.glob(".staging-*")


def index_key(source_digest: str, build: tuple[str, ...] | None) -> str:
    """The index key of a source folder's digest and its build command."""
    text = json.dumps([source_digest, list(build or ())])
    return hashlib.sha256(text.encode()).hexdigest()


__all__ = [
    "DEFAULT_CAPS",
    "Caps",
    "Entry",
    "SnapshotStore",
    "Tally",
    "check_links",
    "digest_of",
    "file_mode",
    "index_key",
    "remove_tree",
    "scan",
    "shown",
    "write_all",
]
