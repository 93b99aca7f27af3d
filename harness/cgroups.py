"""Control groups for bots: each bot start gets its own group in every controller the harness can use.

* ``cpu``: all the bot's processes share at most one core's worth of CPU time
  (``cpu.cfs_quota_us`` on cgroup v1, ``cpu.max`` on v2), and the CPU scheduler shares
  a contended core between groups, not between processes: 40 busy children of one bot
  get one bot's share, not forty;
* ``memory``: what the bot's processes *use* (``memory.limit_in_bytes`` and
  ``memory.memsw.limit_in_bytes`` on v1, ``memory.max`` and ``memory.swap.max`` on v2);
* ``pids``: processes and threads at once (``pids.max``).

Controllers are found at run time from ``/proc/self/mounts`` (cgroup v1 hierarchies,
or a v2 mount that offers the controller); where one is missing or not writable the
limit is not applied (see :func:`missing`). The bot joins its groups through a tiny
``/bin/sh`` prefix that writes its own pid to each ``cgroup.procs`` and then execs
the rest of the command line (no ``preexec_fn``: the referee forks nothing of its own).
Groups are removed when the bot ends (:func:`release`); groups left by a killed
harness are swept at the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CONTROLLERS = ("cpu", "memory", "pids")
PARENT = "llama-harness"
CPU_PERIOD_US = 100_000
CPU_CORES = 1  # a bot's processes together get at most this many cores' worth of CPU time
MIB = 1 << 20
JOIN_MARK = "llama-cgroup"  # $0 of the joining shell: marks the prefix for release()
_JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy we may create groups in."""

    root: Path
    controllers: frozenset[str]
    v2: bool


def _mounts() -> list[tuple[str, str, str]]:
    """(file system type, mount point, options) of every cgroup mount."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mounts", encoding="utf-8") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                point = fields[1].replace("\\040", " ")
                found.append((fields[2], point, fields[3]))
    return found


@functools.lru_cache(maxsize=1)
def hierarchies() -> tuple[Hierarchy, ...]:
    """The writable hierarchies, one per controller (a v1 hierarchy wins over v2 for its controllers)."""
    v1: list[Hierarchy] = []
    v2: list[Hierarchy] = []
    for kind, point, options in _mounts():
        root = Path(point)
        if not (os.access(root, os.W_OK) and (root / "cgroup.procs").is_file()):
            continue
        if kind == "cgroup":
            wanted = frozenset(o for o in options.split(",") if o in CONTROLLERS)
            if wanted:
                v1.append(Hierarchy(root, wanted, False))
        else:
            try:
                offered = set((root / "cgroup.controllers").read_text().split())
            except OSError:
                continue
            if wanted := frozenset(offered & set(CONTROLLERS)):
                v2.append(Hierarchy(root, wanted, True))
    taken = {c for h in v1 for c in h.controllers}
    for hierarchy in v2:
        rest = hierarchy.controllers - taken
        if rest:
            v1.append(Hierarchy(hierarchy.root, frozenset(rest), True))
            taken |= rest
    return tuple(v1)


def available() -> frozenset[str]:
    """The controllers bots can be limited with here."""
    return frozenset(c for h in hierarchies() for c in h.controllers)


def missing() -> list[str]:
    """The controllers that are not available, in CONTROLLERS order."""
    have = available()
    return [c for c in CONTROLLERS if c not in have]


@dataclass(frozen=True)
class BotGroups:
    """The groups of one bot start, and which limits they apply."""

    paths: tuple[Path, ...]
    controllers: frozenset[str]

    def join_argv(self) -> list[str]:
        """The argv prefix that moves the bot into every group before exec'ing the rest."""
        if not self.paths:
            return []
        procs = [str(path / "cgroup.procs") for path in self.paths]
        return ["/bin/sh", "-c", _JOIN, JOIN_MARK, *procs, "--"]


_counter = [0]
_parents: set[Path] = set()


def _settings(hierarchy: Hierarchy, limits: Mapping[str, int]) -> dict[str, str]:
    """The files to write in a new group of ``hierarchy``, in order."""
    values: dict[str, str] = {}
    memory = limits["memory_mb"] * MIB
    for controller in sorted(hierarchy.controllers):
        if controller == "cpu":
            quota = CPU_PERIOD_US * CPU_CORES
            if hierarchy.v2:
                values["cpu.max"] = f"{quota} {CPU_PERIOD_US}"
            else:
                values["cpu.cfs_period_us"] = str(CPU_PERIOD_US)
                values["cpu.cfs_quota_us"] = str(quota)
        elif controller == "memory":
            if hierarchy.v2:
                values["memory.max"] = str(memory)
                values["memory.swap.max?"] = "0"  # '?': only where the file exists
            else:
                values["memory.limit_in_bytes"] = str(memory)
                values["memory.memsw.limit_in_bytes?"] = str(memory)  # no swap beyond it
        elif controller == "pids":
            # two more: bubblewrap's monitor and the namespace's init
            values["pids.max"] = str(limits["processes"] + 2)
    return values


def _parent(hierarchy: Hierarchy) -> Path:
    parent = hierarchy.root / PARENT
    parent.mkdir(exist_ok=True)
    if hierarchy.v2:  # children need the controllers enabled in every ancestor
        for folder in (hierarchy.root, parent):
            control = folder / "cgroup.subtree_control"
            enabled = set(control.read_text().split())
            for controller in sorted(hierarchy.controllers - enabled):
                control.write_text(f"+{controller}")
    if parent not in _parents:
        if not _parents:
            atexit.register(_sweep_all)
        _parents.add(parent)
        sweep(parent)
    return parent


def new_groups(name: str, limits: Mapping[str, int]) -> BotGroups:
    """Create this bot start's groups with ``limits`` (merged); controllers that fail are left out."""
    _counter[0] += 1
    paths: list[Path] = []
    applied: set[str] = set()
    for hierarchy in hierarchies():
        try:
            parent = _parent(hierarchy)
        except OSError:
            continue
        group = parent / f"{os.getpid()}-{_counter[0]}-{name}"
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            for file, value in _settings(hierarchy, limits).items():
                optional = file.endswith("?")
                target = group / file.rstrip("?")
                if optional and not target.exists():
                    continue
                target.write_text(value)
        except OSError:
            with contextlib.suppress(OSError):
                group.rmdir()
            continue
        paths.append(group)
        applied |= hierarchy.controllers
    return BotGroups(tuple(paths), frozenset(applied))


def groups_in(argv: Sequence[str]) -> list[Path]:
    """The groups a prefix made by :meth:`BotGroups.join_argv` joins (none for another argv)."""
    try:
        start = list(argv).index(JOIN_MARK) + 1
        end = list(argv).index("--", start)
    except ValueError:
        return []
    return [Path(procs).parent for procs in argv[start:end]]


def _pids(group: Path) -> list[int]:
    try:
        return [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def release(argv: Sequence[str], tries: int = 50) -> None:
    """Kill whatever is still in the groups ``argv`` joined, then remove the groups."""
    for group in groups_in(argv):
        for _ in range(tries):
            for pid in _pids(group):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # busy: a process is still exiting
                time.sleep(0.01)


def oom_kills(argv: Sequence[str]) -> int:
    """How many processes the memory limit of ``argv``'s groups has killed."""
    count = 0
    for group in groups_in(argv):
        for name in ("memory.oom_control", "memory.events"):
            with contextlib.suppress(OSError, ValueError):
                for line in (group / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        count += int(value)
    return count


def limits_in(argv: Sequence[str]) -> dict[str, int]:
    """What the groups ``argv`` joins apply: ``memory`` (bytes), ``pids``, ``cpu`` (cores, rounded)."""
    found: dict[str, int] = {}
    for group in groups_in(argv):
        for name, key in (("memory.limit_in_bytes", "memory"), ("memory.max", "memory"), ("pids.max", "pids")):
            with contextlib.suppress(OSError, ValueError):
                found[key] = int((group / name).read_text().split()[0])
        with contextlib.suppress(OSError, ValueError):
            quota = int((group / "cpu.cfs_quota_us").read_text())
            period = int((group / "cpu.cfs_period_us").read_text())
            found["cpu"] = max(1, round(quota / period))
        with contextlib.suppress(OSError, ValueError):
            quota_text, period_text = (group / "cpu.max").read_text().split()
            found["cpu"] = max(1, round(int(quota_text) / int(period_text)))
    return found


def sweep(parent: Path, final: bool = False) -> None:
    """Remove groups left by harness processes that are gone (and, when ``final``, our own empty ones).

    Never our own otherwise: a bot's group exists a moment before its shell joins it.
    """
    me = str(os.getpid())
    with contextlib.suppress(OSError):
        for child in parent.iterdir():
            owner = child.name.split("-", 1)[0]
            gone = owner != me and owner.isdigit() and not Path(f"/proc/{owner}").exists()
            if child.is_dir() and (gone or (final and owner == me)):
                with contextlib.suppress(OSError):
                    child.rmdir()


def _sweep_all() -> None:
    for parent in _parents:
        sweep(parent, final=True)


__all__ = [
    "CONTROLLERS",
    "CPU_CORES",
    "BotGroups",
    "available",
    "groups_in",
    "limits_in",
    "missing",
    "new_groups",
    "oom_kills",
    "release",
    "sweep",
]
