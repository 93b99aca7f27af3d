"""Leagues on workers that share no filesystem with the league: bots and results as bytes.

Out: every sealed snapshot of the league, packed (:func:`harness.bots.packing.pack`),
goes to the Dask scheduler once in a :class:`SnapshotPlugin`; Dask hands the plugin to
every worker that joins (a restarted one too). A job unpacks the snapshots of its
table into the worker's own cache (``<worker local directory>/llama-snapshots``),
verified against their digests, once per worker: later jobs reuse them.

Back: a shipped job plays into a private temp folder of its worker and returns its
replays (zlib-compressed, or the ``.gz`` files as they are) and its bots' stderr logs
in its :class:`~harness.league.runner.JobOutcome`; :func:`record` writes them into
the league folder, then commits the job in one transaction. No worker writes into
``--out``, which need not exist on any worker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import platform
import sys
import threading
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.bots.manifest import BotSpec
from harness.bots.packing import pack, unpack
from harness.bots.process import LOG_CAP
from harness.bots.snapshot import SnapshotStore, scan
from harness.errors import HarnessError
from harness.replay.io import sync_filesystem

if TYPE_CHECKING:
    from harness.league.runner import JobOutcome
    from harness.league.store import Store

PLUGIN = "llama-harness-snapshots"
CACHE = "llama-snapshots"  # in the worker's local directory
_NATIVE = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"MZ")

try:  # Any-typed: distributed ships no type hints; without it no cluster is reachable anyway
    _WorkerPlugin: Any = importlib.import_module("distributed").WorkerPlugin
except ImportError:  # pragma: no cover - the [dask] extra is not installed
    _WorkerPlugin = object


def this_platform() -> str:
    """The platform native code is built for here: ``linux-x86_64``, ``darwin-arm64`` ..."""
    return f"{sys.platform}-{platform.machine().lower()}"


@dataclass(frozen=True)
class Shipped:
    """One packed snapshot, and the platform it needs (None: no native code, runs anywhere)."""

    digest: str
    data: bytes
    platform: str | None


def native(snapshot: Path) -> bool:
    """True if an executable file of ``snapshot`` is a native program (ELF, Mach-O, PE)."""
    for entry in scan(snapshot, f"snapshot {snapshot}"):
        if entry.kind == "f" and entry.executable:
            with open(snapshot / entry.path, "rb") as fh:
                if fh.read(4).startswith(_NATIVE):
                    return True
    return False


def shipments(bots: Iterable[BotSpec]) -> dict[str, Shipped]:
    """Each sealed bot's snapshot packed, by digest (copies of one snapshot once).

    A bot with a build, or with a native executable, needs the league machine's
    platform. Raises HarnessError naming a bot that is not sealed.
    """
    packed: dict[str, Shipped] = {}
    for bot in bots:
        if bot.snapshot is None:
            raise HarnessError(f"bot {bot.name!r}: not sealed, so it cannot be sent to a cluster's workers")
        if bot.snapshot not in packed:
            needs = this_platform() if bot.build or native(bot.folder) else None
            packed[bot.snapshot] = Shipped(bot.snapshot, pack(bot.folder), needs)
    return packed


class SnapshotPlugin(_WorkerPlugin):  # type: ignore[misc]
    """The league's packed snapshots, handed by Dask to every worker; unpacked on first use."""

    name = PLUGIN

    def __init__(self, snapshots: dict[str, Shipped]) -> None:
        self.snapshots = snapshots
        self.cache: Path | None = None
        self.address = "?"
        self._lock = threading.Lock()  # a worker with several threads unpacks a snapshot once

    def __getstate__(self) -> dict[str, Any]:
        return {"snapshots": self.snapshots}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["snapshots"])  # type: ignore[misc]

    def setup(self, worker: Any) -> None:
        self.cache = Path(worker.local_directory) / CACHE
        self.address = str(worker.address)

    def folder(self, bot: BotSpec) -> Path:
        """``bot``'s snapshot in this worker's cache, unpacked and verified on first use.

        Raises HarnessError (one line naming the bot, the worker and the platforms) for a
        snapshot this worker cannot run, or bytes that are not the snapshot named.
        """
        shipped = self.snapshots.get(bot.snapshot or "")
        if shipped is None:
            raise HarnessError(f"bot {bot.name!r}: its snapshot was not sent to worker {self.address}")
        here = this_platform()
        if shipped.platform is not None and shipped.platform != here:
            raise HarnessError(
                f"bot {bot.name!r}: its snapshot holds native code for {shipped.platform}; "
                f"worker {self.address} is {here}"
            )
        assert self.cache is not None  # setup() ran: Dask calls it before any task
        with self._lock:
            store = SnapshotStore(self.cache)
            if store.has(shipped.digest):
                return store.path(shipped.digest)
            return unpack(shipped.data, self.cache, shipped.digest)


def register(client: Any, bots: Sequence[BotSpec]) -> int:
    """Send the bots' snapshots to the cluster of ``client`` (Any: a distributed.Client); return their bytes."""
    snapshots = shipments(bots)
    client.register_plugin(SnapshotPlugin(snapshots), name=PLUGIN)
    return sum(len(s.data) for s in snapshots.values())


def plugin() -> SnapshotPlugin:
    """This worker's snapshot plugin; raises HarnessError outside a Dask worker that has it."""
    try:
        worker = importlib.import_module("distributed").get_worker()
    except (ImportError, ValueError) as err:
        raise HarnessError(f"a shipped job runs on a Dask worker only ({err})") from None
    found = worker.plugins.get(PLUGIN)
    if not isinstance(found, SnapshotPlugin):
        raise HarnessError(f"worker {worker.address}: the league's snapshots were not sent to it")
    return found


def localize(bots: Sequence[BotSpec]) -> tuple[tuple[BotSpec, ...], Path]:
    """``bots`` running from this worker's cache, and the cache's folder (to hide from bots)."""
    found = plugin()
    local = tuple(dataclasses.replace(bot, folder=found.folder(bot)) for bot in bots)
    assert found.cache is not None
    return local, found.cache


def cached(dask_worker: Any) -> list[str]:
    """The snapshot digests unpacked in a worker's cache so far (``client.run(cached)``)."""
    cache = Path(dask_worker.local_directory) / CACHE
    if not cache.is_dir():
        return []
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith("."))


# -- results back ------------------------------------------------------------------------


def collect(folder: Path, replays: Iterable[str], logs: Path) -> tuple[tuple[tuple[str, bytes], ...], tuple[tuple[str, bytes], ...]]:
    """The job's replays (relative path, compressed bytes) under ``folder``, and its bots' logs in ``logs``.

    A ``.jsonl`` replay is zlib-compressed (level 1: ~6x smaller for little time); a
    ``.gz`` one goes as it is. A log goes whole (the bot's cap holds it).
    """
    files = []
    for relative in replays:
        data = (folder / relative).read_bytes()
        files.append((relative, data if relative.endswith(".gz") else zlib.compress(data, 1)))
    tails = []
    if logs.is_dir():
        for log in sorted(logs.iterdir()):
            data = log.read_bytes()
            if data:
                tails.append((log.name, zlib.compress(data[-LOG_CAP:], 1)))
    return tuple(files), tuple(tails)


def _write(path: Path, data: bytes) -> None:
    """``data`` as the file ``path``, atomically (a ``.part`` renamed into place)."""
    part = path.with_name(path.name + ".part")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        with memoryview(data) as view:
            done = 0
            while done < len(view):
                done += os.write(fd, view[done:])
    finally:
        os.close(fd)
    os.replace(part, path)


def _append_log(path: Path, data: bytes) -> None:
    """Append to a bot's log in the league folder, up to its cap (as a local worker does)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        room = LOG_CAP - fh.tell()
        if room > 0:
            fh.write(data[:room])


def write_outcome(folder: Path, outcome: JobOutcome) -> None:
    """Write a shipped job's replays and logs into the league ``folder``, then sync the disk.

    A no-op for a job that wrote its own replays (a local worker). Raises OSError
    (e.g. a full disk), HarnessError for replay bytes that do not decompress.
    """
    if not outcome.files and not outcome.logs:
        return
    for relative, data in outcome.files:
        if Path(relative).is_absolute() or ".." in Path(relative).parts:  # never outside the folder
            raise HarnessError(f"job {outcome.job_id}: a replay path {relative!r} outside the league folder")
        try:
            body = data if relative.endswith(".gz") else zlib.decompress(data)
        except zlib.error as err:
            raise HarnessError(f"job {outcome.job_id}: replay {relative} came back damaged ({err})") from None
        _write(folder / relative, body)
    for name, data in outcome.logs:
        with contextlib.suppress(zlib.error):
            _append_log(folder / "logs" / Path(name).name, zlib.decompress(data))
    # the replays reach the disk before the league records the job as done
    sync_filesystem(folder)


def record(store: Store, folder: Path, outcome: JobOutcome) -> bool:
    """Write ``outcome``'s files into ``folder`` and commit the job in one transaction.

    Returns False, writing nothing, for a job already recorded (a job finished twice
    is recorded once, its first replays kept). Raises as write_outcome and Store.commit_job.
    """
    if store.job_done(outcome.job_id):
        return False
    write_outcome(folder, outcome)
    return store.commit_job(outcome.job_id, outcome.games, outcome.timing)


__all__ = [
    "PLUGIN",
    "Shipped",
    "SnapshotPlugin",
    "cached",
    "collect",
    "localize",
    "native",
    "record",
    "register",
    "shipments",
    "this_platform",
    "write_outcome",
]
