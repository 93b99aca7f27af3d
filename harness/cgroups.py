"""Control groups for bots: each bot start gets its own group in every controller the harness can use.

* ``cpu``: all the bot's processes share at most one core's worth of CPU time
  (``cpu.cfs_quota_us`` on cgroup v1, ``cpu.max`` on v2), and the CPU scheduler shares
  a contended core between groups, not between processes: 40 busy children of one bot
  get one bot's share, not forty;
* ``memory``: what the bot's processes *use* (``memory.limit_in_bytes`` and
  ``memory.memsw.limit_in_bytes`` on v1, ``memory.max`` and ``memory.swap.max`` on v2);
* ``pids``: processes and threads at once (``pids.max``).

Controllers are found at run time, in this order: writable cgroup v1 hierarchies and
cgroup v2 mounts from ``/proc/self/mounts``; then a **delegated** cgroup v2 group: the
harness's own group (``0::/path`` in ``/proc/self/cgroup``) when the user may write
it, as under ``systemd-run --user --scope -p Delegate=yes``. A v2 group with processes
cannot give controllers to children (the no-internal-process rule), so the harness
moves itself (and what it started) into a leaf, ``LEAF``, when it finds the group; a
group that holds other processes too (a desktop terminal's scope) is left alone.
Where a controller is missing or not writable the limit is not applied (see
:func:`missing`, and :func:`advice` for how to get it). The bot joins its groups through a tiny
``/bin/sh`` prefix that writes its own pid to each ``cgroup.procs`` and then execs
the rest of the command line (no ``preexec_fn``: the referee forks nothing of its own).
Groups are removed when the bot ends (:func:`release`); groups left by a killed
harness are swept at the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
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
LEAF = "llama-harness-referee"  # where the harness's own processes move in a delegated group
SELF_CGROUP = "/proc/self/cgroup"
JOIN_MARK = "llama-cgroup"  # $0 of the joining shell: marks the prefix for release()
_JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy we may create groups in."""

    root: Path
    controllers: frozenset[str]
    v2: bool
    delegated: bool = False  # the harness's own v2 group, not a mount's root


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def _offered(group: Path) -> frozenset[str]:
    """The controllers a v2 group can give its children (none where it cannot be read)."""
    try:
        return frozenset((group / "cgroup.controllers").read_text().split()) & frozenset(CONTROLLERS)
    except OSError:
        return frozenset()


def own_v2_group() -> str | None:
    """This process's cgroup v2 path (``/user.slice/…``), or None where it has none."""
    with contextlib.suppress(OSError), open(SELF_CGROUP, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("0::"):
                return line[3:].rstrip("\n") or "/"
    return None


def delegated_group(mount: Path, own: str | None) -> Path | None:
    """The group of the v2 ``mount`` delegated to us: our own (or the parent of our ``LEAF``), if we may write it.

    None for the mount's root (a root is used only where it is writable itself) and
    for a group whose ``cgroup.procs`` or ``cgroup.subtree_control`` we cannot write.
    """
    if own is None or own.strip("/") == "":
        return None
    group = mount / own.strip("/")
    if group.name == LEAF:  # we, or the harness that started us, moved here already
        group = group.parent
    if group == mount or not group.is_dir():
        return None
    files = (group, group / "cgroup.procs", group / "cgroup.subtree_control")
    return group if all(_writable(path) for path in files) else None


def _parent_pid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def only_ours(group: Path) -> bool:
    """True when every process in ``group`` itself (not its children) is this process or one it started.

    A group the user may write that holds other processes too — a desktop terminal's
    scope, holding the shell — is systemd's, not delegated to us: it is left alone.
    """
    me = os.getpid()
    for pid in _pids(group):
        seen = 0
        while pid not in (me, 0, 1) and seen < 4096:  # up the parent chain, bounded
            pid, seen = _parent_pid(pid), seen + 1
        if pid != me:
            return False
    return True


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


def _moved_in(group: Path) -> bool:
    """Move this process (and what it started) into ``group``'s leaf, if nothing else is in the group.

    Done when the group is found, so that processes the harness starts later (league
    workers) are in the leaf already and find the same group.
    """
    if not only_ours(group):
        return False
    try:
        vacate(group)
    except OSError:
        return False
    return True


def _delegated(taken: set[str]) -> list[Hierarchy]:
    """Delegated v2 groups offering a controller not in ``taken`` (looked for only then: taking one moves us)."""
    if set(CONTROLLERS) <= taken:
        return []
    found = []
    own = own_v2_group()
    for kind, point, _ in _mounts():
        group = delegated_group(Path(point), own) if kind == "cgroup2" else None
        if group is not None and (_offered(group) - taken) and _moved_in(group):
            found.append(Hierarchy(group, _offered(group), True, delegated=True))
    return found


@functools.lru_cache(maxsize=1)
def hierarchies() -> tuple[Hierarchy, ...]:
    """The writable hierarchies, one per controller (a v1 hierarchy wins over v2 for its controllers).

    A delegated group holding only this process and what it started is taken, and this
    process moves into its leaf (:func:`vacate`) at once.
    """
    v1: list[Hierarchy] = []
    v2: list[Hierarchy] = []
    for kind, point, options in _mounts():
        root = Path(point)
        if not (_writable(root) and (root / "cgroup.procs").is_file()):
            continue
        if kind == "cgroup":
            wanted = frozenset(o for o in options.split(",") if o in CONTROLLERS)
            if wanted:
                v1.append(Hierarchy(root, wanted, False))
        elif wanted := _offered(root):
            v2.append(Hierarchy(root, wanted, True))
    taken = {c for h in v1 for c in h.controllers}
    for hierarchy in (*v2, *_delegated(taken | {c for h in v2 for c in h.controllers})):
        rest = hierarchy.controllers - taken  # a delegated group comes last: before rlimits alone
        if rest:
            v1.append(dataclasses.replace(hierarchy, controllers=frozenset(rest)))
            taken |= rest
    return tuple(v1)


def available() -> frozenset[str]:
    """The controllers bots can be limited with here."""
    return frozenset(c for h in hierarchies() for c in h.controllers)


def missing() -> list[str]:
    """The controllers that are not available, in CONTROLLERS order."""
    have = available()
    return [c for c in CONTROLLERS if c not in have]


RECIPE = "systemd-run --user --scope -p Delegate=yes llama-harness …"


def advice() -> str:
    """How to get the missing controllers here, in a few words ("" where none is missing)."""
    gone = missing()
    if not gone:
        return ""
    names = ", ".join(gone)
    mine = [h.root for h in hierarchies() if h.delegated]
    if mine:
        return (
            f"needs root, or the user's systemd delegating {names} too (Delegate= in user@.service): "
            f"the delegated group {mine[0]} offers no {names}"
        )
    if any(_offered(Path(point)) & set(gone) for kind, point, _ in _mounts() if kind == "cgroup2"):
        return f"needs root, or a delegated cgroup v2 group: run under {RECIPE}"
    return "needs root: the controllers here are cgroup v1, which cannot be delegated to the harness"


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


def vacate(group: Path, tries: int = 20) -> None:
    """Move every process of the v2 ``group`` into its ``LEAF`` (made if need be), so it may enable controllers.

    Raises OSError where the leaf cannot be made or written. A process that forks
    meanwhile leaves its child behind: hence the tries.
    """
    leaf = group / LEAF
    leaf.mkdir(exist_ok=True)
    for _ in range(tries):
        pids = _pids(group)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # gone meanwhile
                (leaf / "cgroup.procs").write_text(str(pid))


def _enable(hierarchy: Hierarchy, folder: Path) -> None:
    """Give ``folder``'s children the hierarchy's controllers (v2); raises OSError where it cannot."""
    control = folder / "cgroup.subtree_control"
    missing_here = sorted(hierarchy.controllers - set(control.read_text().split()))
    if missing_here and folder == hierarchy.root and hierarchy.delegated and _pids(folder):
        vacate(folder)  # no internal processes: only the root of the hierarchy may have them
    for controller in missing_here:
        control.write_text(f"+{controller}")


def _parent(hierarchy: Hierarchy) -> Path:
    parent = hierarchy.root / PARENT
    if hierarchy.v2:  # children need the controllers enabled in every ancestor
        _enable(hierarchy, hierarchy.root)
    parent.mkdir(exist_ok=True)
    if hierarchy.v2:
        _enable(hierarchy, parent)
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
    "LEAF",
    "BotGroups",
    "Hierarchy",
    "advice",
    "available",
    "delegated_group",
    "groups_in",
    "limits_in",
    "missing",
    "new_groups",
    "only_ours",
    "oom_kills",
    "own_v2_group",
    "release",
    "sweep",
    "vacate",
]
