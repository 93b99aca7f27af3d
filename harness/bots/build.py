"""Builds and sealing: a bot runs from a sealed snapshot of its folder, built on a copy.

:func:`seal_bot` turns a loaded bot into one that runs from ``<store>/<digest>/``
(see :mod:`harness.bots.snapshot`). A bot with a build command is built on a copy of
its folder, never in the organiser's folder:

* under bubblewrap (a :class:`~harness.sandbox_types.Sandbox` whose ``for_build`` gives
  a prefix), in a tmpfs of the folder's size plus ``build_mb`` inside the sandbox: the
  folder is copied in, the build runs, every other process of the sandbox's PID namespace is killed, and the result leaves as a
  tar on the sandbox's stdout, unpacked here with the snapshot's caps;
* without it, in a temporary copy whose growth is measured as the build runs (the
  limit is advisory there), its session and orphans killed after it.

The store keeps an index ``source digest + build command -> snapshot``: an unchanged
folder is not built again (a build that is not reproducible does not make a resumed
league see a changed bot).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from harness.bots.manifest import BotSpec, check_command, resolve_program
from harness.bots.packing import unpack_stream
from harness.bots.process import become_subreaper, kill_tree, launch_environment
from harness.bots.snapshot import (
    DEFAULT_CAPS,
    Caps,
    Entry,
    SnapshotStore,
    digest_of,
    index_key,
    remove_tree,
    scan,
)
from harness.cgroups import release
from harness.errors import HarnessError
from harness.limits import MIB, merge_limits
from harness.sandbox_types import Sandbox

BUILD_TIMEOUT = 600.0  # seconds
_STATUS_CAP = 200  # bytes of the status line the build script writes before its tar
_FULL_BLOCKS = 64  # free blocks left in the build space: a failed build that filled it

# Runs inside bubblewrap as ``sh -c SCRIPT llama-build SOURCE PROGRAM ARGS...``. Its
# stdout is a status line, then (after a build that succeeded) the tar of the result.
# ``kill -1`` in a PID namespace reaches every process but itself and bubblewrap's
# init: the build's daemons are gone before the tar is made.
BUILD_SCRIPT = r"""
source=$1; shift
cp -R -P --preserve=mode,timestamps -- "$source"/. . >&2 || { printf 'llama-build copy 0\n'; exit 0; }
"$@" >&2 </dev/null
status=$?
i=0
while kill -s KILL -- -1 2>/dev/null; do i=$((i+1)); [ "$i" -gt 100000 ] && break; done
printf 'llama-build %s %s\n' "$status" "$(stat -f -c %a .)"
[ "$status" -eq 0 ] || exit 0
exec tar --hard-dereference -cf - .
"""


def seal_bot(
    bot: BotSpec,
    store: Path,
    logs: Path,
    *,
    wrapper: Callable[[BotSpec, Path], list[str]] | None = None,
    timeout: float = BUILD_TIMEOUT,
    caps: Caps = DEFAULT_CAPS,
) -> BotSpec:
    """``bot`` running from its sealed snapshot in ``store`` (built first if it has a build command).

    A sealed bot is returned as it is. Raises HarnessError, one line naming the bot,
    when its folder or its build's result breaks a snapshot rule or cap, when the build
    fails, overruns ``timeout`` or its space, or leaves no runnable command.
    """
    if bot.snapshot:
        return bot
    who = f"bot {bot.name!r}"
    snapshots = SnapshotStore(store)
    source = scan(bot.folder, who, caps)  # the organiser's folder: refused early, and its digest
    key = index_key(digest_of(source), bot.build)
    digest = snapshots.lookup(key)
    if digest is None:
        if bot.build:
            staging, digest = _build(bot, snapshots, logs, wrapper, timeout, caps, _size(source))
        else:
            staging = snapshots.staging()
            try:
                digest = digest_of(scan(bot.folder, who, caps, staging))
            except BaseException:
                remove_tree(staging)
                raise
        snapshots.publish(staging, digest)
        snapshots.remember(key, digest)
    folder = snapshots.path(digest)
    if bot.build:  # a bot without one was checked at load (and a library caller may start a missing program: a fault)
        check_command(bot.folder / "bot.toml", folder, bot.command[0])
    return dataclasses.replace(bot, folder=folder, source=bot.folder, snapshot=digest)


def seal_bots(
    bots: Iterable[BotSpec],
    store: Path,
    logs: Path,
    wrapper: Callable[[BotSpec, Path], list[str]] | None = None,
) -> tuple[BotSpec, ...]:
    """Every bot sealed, one build per folder (a folder may take several entries: self-play)."""
    done: dict[Path, BotSpec] = {}
    sealed = []
    for bot in bots:
        if bot.folder not in done:
            done[bot.folder] = seal_bot(bot, store, logs, wrapper=wrapper)
        first = done[bot.folder]
        sealed.append(dataclasses.replace(bot, folder=first.folder, source=first.source, snapshot=first.snapshot))
    return tuple(sealed)


def _size(entries: list[Entry]) -> int:
    """Bytes a copy of ``entries`` takes in a tmpfs (a page per folder, link and file tail)."""
    return sum(entry.size + 4096 for entry in entries) + (1 << 20)


def _program(bot: BotSpec) -> str:
    assert bot.build  # only bots with a build are built
    program = resolve_program(bot.folder, bot.build[0])
    if shutil.which(program) is None:
        raise HarnessError(f"bot {bot.name!r}: build command {bot.build[0]!r} not found")
    return program


def _build(
    bot: BotSpec,
    snapshots: SnapshotStore,
    logs: Path,
    wrapper: Callable[[BotSpec, Path], list[str]] | None,
    timeout: float,
    caps: Caps,
    room: int,
) -> tuple[Path, str]:
    """Run the build; return the staging folder holding its sealed result, and the result's digest."""
    assert bot.build  # only bots with a build are built
    _program(bot)  # found here, or one line before any sandbox starts
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{bot.name}.build.log"
    sandbox = wrapper if isinstance(wrapper, Sandbox) else None  # else a caller's own wrapper: no view
    cap = merge_limits(dict(sandbox.limits if sandbox else ()), bot.limits, bot.name)["build_mb"] * MIB
    become_subreaper()  # a daemon that leaves the build's session re-parents to us, and is found
    work = Path(tempfile.mkdtemp(prefix=f"llama-build-{bot.name}-"))
    staging = snapshots.staging()
    try:
        tmp = work / "tmp"
        tmp.mkdir()
        prefix = sandbox.for_build(bot, tmp, room) if sandbox else None
        if prefix is not None:
            # a path is relative to the build's working folder (the copy); a bare name is found
            # on the view's PATH inside (not the harness's pyenv shim)
            inside = bot.build[0]
            argv = [*prefix, "/bin/sh", "-c", BUILD_SCRIPT, "llama-build", str(bot.folder), inside, *bot.build[1:]]
            digest = _sandboxed(bot, argv, prefix, tmp, log, staging, cap, timeout, caps)
        else:
            digest = _in_copy(bot, wrapper, work, tmp, log, staging, cap, timeout, caps)
        return staging, digest
    except BaseException:
        remove_tree(staging)
        raise
    finally:
        remove_tree(work)


def _in_copy(
    bot: BotSpec,
    wrapper: Callable[[BotSpec, Path], list[str]] | None,
    work: Path,
    tmp: Path,
    log: Path,
    staging: Path,
    cap: int,
    timeout: float,
    caps: Caps,
) -> str:
    """The build without bubblewrap: in a temporary copy, measured (advisory), its processes killed after."""
    assert bot.build  # only bots with a build are built
    who = f"bot {bot.name!r}"
    copy = work / "folder"
    copy.mkdir()
    scan(bot.folder, who, caps, copy, sealed=False)
    builder = dataclasses.replace(bot, folder=copy)
    prefix = wrapper(builder, tmp) if wrapper is not None else []
    try:
        with open(log, "wb") as fh:
            proc = subprocess.Popen(
                [*prefix, resolve_program(copy, bot.build[0]), *bot.build[1:]],
                cwd=copy,
                env=launch_environment(builder, tmp, prefix),
                stdout=fh,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                code = wait_build(proc, copy, cap, timeout, caps.entries)
            finally:
                kill_tree(proc.pid)  # its session, and daemons that left it: gone before the snapshot
    finally:
        release(prefix)
    _check_exit(bot, code, log)
    return digest_of(scan(copy, who, caps, staging))


def folder_usage(folder: Path, most: int = 1 << 62) -> tuple[int, int]:
    """(bytes, entries) that ``folder`` holds on disk, links not followed; walked iteratively.

    A sparse file counts at its size. Stops counting past ``most`` entries (a build
    making millions of empty files is stopped there, not measured whole).
    """
    total = count = 0
    todo = [os.fspath(folder)]
    while todo and count <= most:
        top = todo.pop()
        with contextlib.suppress(OSError), os.scandir(top) as listing:
            for entry in listing:
                count += 1
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(info.st_mode):
                        total += max(info.st_size, info.st_blocks * 512)
                    else:
                        total += 4096
                        if stat.S_ISDIR(info.st_mode):
                            todo.append(entry.path)
    return total, count


def wait_build(
    proc: subprocess.Popen[bytes], folder: Path, cap: int, timeout: float, entries: int = 1 << 62
) -> int | str:
    """Wait for a build; its exit status, or why it was killed ("took over …", "wrote over …").

    The folder is measured as the build runs and after it: a build may add at most
    ``cap`` bytes and ``entries`` files, folders and links to it. It is measured every
    50 ms, less often where one measure of a large folder takes long (at most a fifth
    of the time goes to measuring): a build writing at memory speed still overshoots by
    a few tens of MB at most. Advisory: a file unlinked while open is not seen (the
    bubblewrap build's tmpfs bounds those).
    """
    start, start_count = folder_usage(folder)
    end = time.monotonic() + timeout
    pause = 0.05
    while True:
        try:
            code = proc.wait(min(pause, max(0.0, end - time.monotonic())))
        except subprocess.TimeoutExpired:
            code = None
        measured = time.monotonic()
        size, count = folder_usage(folder, start_count + entries)
        pause = max(0.05, 4 * (time.monotonic() - measured))
        if size - start > cap:
            why = f"wrote over {cap >> 20} MB into its folder (limit build_mb)"
        elif count - start_count > entries:
            why = f"made over {entries} files, folders and links in its folder"
        elif code is not None:
            return code
        elif time.monotonic() >= end:
            why = f"took over {timeout:.0f} s"
        else:
            continue
        kill_tree(proc.pid)
        proc.wait()
        return why


def _check_exit(bot: BotSpec, code: int | str, log: Path) -> None:
    if isinstance(code, str):  # killed with all it started
        raise HarnessError(f"bot {bot.name!r}: build {code} (log: {log})")
    if code != 0:
        raise HarnessError(f"bot {bot.name!r}: build failed with exit {code} (log: {log})")


def _said_full(log: Path) -> bool:
    """True when the end of a failed build's log says the space ran out (a file unlinked while open frees it at exit)."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, fh.seek(0, 2) - 65536))
            return b"No space left on device" in fh.read()
    except OSError:
        return False


class _Receiver(threading.Thread):
    """Reads the build script's status line and unpacks the tar that follows (a thread: the build may never write)."""

    def __init__(self, stream: IO[bytes], staging: Path, who: str, caps: Caps) -> None:
        super().__init__(name="llama-build-receiver", daemon=True)
        self.stream, self.staging, self.who, self.caps = stream, staging, who, caps
        self.status: list[str] = []
        self.digest: str | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            line = self.stream.readline(_STATUS_CAP)
            self.status = line.decode("ascii", "replace").split()
            if self.status[:2] == ["llama-build", "0"]:
                self.digest = digest_of(unpack_stream(self.stream, self.staging, self.who, self.caps))
        except BaseException as err:  # told by the main thread
            self.error = err
        finally:
            # what is left unread (a hostile build's extra output): drain, or it blocks on the pipe
            try:
                while self.stream.read(1 << 16):
                    pass
            except (OSError, ValueError):
                pass


def _sandboxed(
    bot: BotSpec,
    argv: list[str],
    prefix: list[str],
    tmp: Path,
    log: Path,
    staging: Path,
    cap: int,
    timeout: float,
    caps: Caps,
) -> str:
    """The build in bubblewrap's build space; its result unpacked into ``staging``; return the digest."""
    who = f"bot {bot.name!r}"
    try:
        with open(log, "wb") as fh:
            proc = subprocess.Popen(
                argv,
                cwd=tmp,
                env=launch_environment(bot, tmp, prefix),
                stdout=subprocess.PIPE,
                stderr=fh,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            assert proc.stdout is not None  # PIPE was asked for
            receiver = _Receiver(proc.stdout, staging, who, caps)
            receiver.start()
            end = time.monotonic() + timeout
            why: str | None = None
            try:
                while True:
                    try:
                        proc.wait(0.05)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    if receiver.error is not None:
                        break
                    if time.monotonic() >= end:
                        why = f"took over {timeout:.0f} s"
                        break
            finally:
                kill_tree(proc.pid)
                proc.wait()
                receiver.join(30)
                proc.stdout.close()
    finally:
        release(prefix)
    if why is not None:
        raise HarnessError(f"{who}: build {why} (log: {log})")
    if receiver.error is not None:
        if isinstance(receiver.error, HarnessError):
            raise receiver.error
        raise HarnessError(f"{who}: cannot read its build's result: {receiver.error}")
    status = receiver.status
    if len(status) != 3 or status[0] != "llama-build":
        raise HarnessError(f"{who}: the build's sandbox ended without a result (exit {proc.returncode}; log: {log})")
    if status[1] == "copy":
        raise HarnessError(f"{who}: cannot copy its folder into the build space (log: {log})")
    code = int(status[1]) if status[1].isdigit() else -1
    if code != 0 and ((status[2].isdigit() and int(status[2]) <= _FULL_BLOCKS) or _said_full(log)):
        raise HarnessError(f"{who}: build wrote over {cap >> 20} MB into its folder (limit build_mb; log: {log})")
    _check_exit(bot, code, log)
    if receiver.digest is None:
        raise HarnessError(f"{who}: the build's result did not arrive whole (log: {log})")
    return receiver.digest


__all__ = ["BUILD_SCRIPT", "BUILD_TIMEOUT", "seal_bot", "seal_bots"]
