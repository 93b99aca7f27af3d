"""Sandboxes for bot processes: an argv prefix that confines the bot's command.

``resolve_sandbox(mode, limits, runtimes)`` returns a :data:`harness.match.Wrapper`, a picklable
frozen dataclass (the league ships it to worker processes):

* ``none`` – :class:`Limited`: resource limits only (``prlimit``, a pids cgroup);
* ``bwrap`` – :class:`Bubblewrap`: the same limits, and bubblewrap gives the bot no
  network, a fixed read-only view (the system's runtime folders, parts of /etc, the
  organiser's ``runtimes``: nothing a bot's files name), its own folder read-only, one
  size-bounded temp tmpfs, its own PID namespace, no capabilities, a seccomp filter
  (:mod:`harness.seccomp`: no lock or TCP channel between bots), and death with the referee;
* ``auto`` – ``bwrap`` when it is installed and works, else ``none`` with a warning
  that names the protections that are missing.

See docs/sandbox.md.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness import cgroups, seccomp
from harness.bots.manifest import BotSpec
from harness.bots.process import Prefix, bot_environment, env_argv
from harness.errors import HarnessError
from harness.limits import MIB, check_limits, merge_limits, prlimit_args
from harness.match import Wrapper
from harness.sandbox_view import (
    DEV_LINKS,
    DEV_NODES,
    SYSTEM_PATHS,
    check_runtimes,
    check_view,
    etc_paths,
    too_wide,
    view_path,
    view_roots,
)

MODES = ("auto", "bwrap", "none")
MISSING = (
    "no network isolation, a full view of the filesystem (the output folder, other bots, "
    "the harness), no PID namespace (a bot can see and signal other processes)"
)


# -- limits: prlimit and the bot's cgroups ----------------------------------------------


def _limits_prefix(
    spec: BotSpec, league: Mapping[str, int], prlimit: str
) -> tuple[list[str], dict[str, int]]:
    limits = merge_limits(league, spec.limits, spec.name)
    groups = cgroups.new_groups(spec.name, limits)
    # memory: what the bot uses, in its cgroup; the address space only where there is none
    address_space = "memory" not in groups.controllers
    return [*groups.join_argv(), prlimit, *prlimit_args(limits, address_space), "--"], limits


@dataclass(frozen=True)
class Limited:
    """No sandbox: the bot runs as a plain process under resource limits."""

    prlimit: str
    limits: tuple[tuple[str, int], ...] = ()

    def __call__(self, spec: BotSpec, tmp: Path) -> list[str]:
        prefix, _ = _limits_prefix(spec, dict(self.limits), self.prlimit)
        return [*prefix, *env_argv(bot_environment(spec, tmp))]


# -- bubblewrap ------------------------------------------------------------------------


@dataclass(frozen=True)
class Bubblewrap:
    """Bubblewrap around the bot, plus the resource limits of :class:`Limited`.

    ``hide`` names folders no bot may see (the output folder, every bot's folder):
    covered with an empty tmpfs wherever a folder shown to the bot would contain them.
    ``runtimes`` are the organiser's extra runtime roots (resolved, checked by
    :func:`check_runtimes`), shown read-only to every bot.
    """

    bwrap: str
    prlimit: str
    limits: tuple[tuple[str, int], ...] = ()
    hide: tuple[str, ...] = ()
    runtimes: tuple[str, ...] = ()

    def __call__(self, spec: BotSpec, tmp: Path) -> list[str]:
        """The argv prefix for one start of ``spec``: a :class:`Prefix` whose seccomp fd the spawn passes and closes."""
        prefix, limits = _limits_prefix(spec, dict(self.limits), self.prlimit)
        env = bot_environment(spec, tmp)
        fd = seccomp.filter_fd()  # the spawn passes it to bwrap (pass_fds) and closes it here
        argv = bwrap_argv(
            self.bwrap, spec, tmp, limits["tmp_mb"] * MIB, self.hide, env=env, runtimes=self.runtimes, seccomp_fd=fd
        )
        return Prefix([*prefix, *argv], fds=(fd,))

    def for_build(self, spec: BotSpec, tmp: Path) -> list[str]:
        """The same sandbox for the build command, with the bot's own folder writable."""
        builder = dataclasses.replace(spec, command=spec.build or spec.command)
        prefix, limits = _limits_prefix(builder, dict(self.limits), self.prlimit)
        env = bot_environment(builder, tmp)
        argv = bwrap_argv(
            self.bwrap, builder, tmp, limits["tmp_mb"] * MIB, self.hide, writable=True, env=env, runtimes=self.runtimes
        )
        return [*prefix, *argv]

    def check(self, spec: BotSpec) -> None:
        """Raise HarnessError (one line) if the bot's program or a #! interpreter is not in the view."""
        check_view(spec, self.runtimes)


def hiding(wrapper: Wrapper | None, *paths: Path) -> Wrapper | None:
    """``wrapper`` that also hides ``paths`` from every bot (a no-op without bubblewrap).

    Raises HarnessError when a runtime root holds one of them (it would show it).
    """
    if not isinstance(wrapper, Bubblewrap):
        return wrapper
    extra = tuple(str(Path(path).resolve()) for path in paths)
    for root in wrapper.runtimes:
        why = too_wide(root, extra)
        if why is not None:
            raise HarnessError(f"runtimes: {root!r} cannot be shown to bots: {why}")
    return dataclasses.replace(wrapper, hide=(*wrapper.hide, *extra))


def check_bots(wrapper: Wrapper | None, bots: Sequence[BotSpec]) -> None:
    """Raise HarnessError (one line naming the bot) for a bot that cannot start in ``wrapper``'s view.

    A no-op without bubblewrap (there is no view). A bot with a build is checked only
    once it is built (its program may not exist before).
    """
    if isinstance(wrapper, Bubblewrap):
        for bot in bots:
            program = bot.command[0]
            if not bot.build or os.sep not in program or os.path.lexists(os.path.join(bot.folder, program)):
                wrapper.check(bot)


def bwrap_argv(
    bwrap: str,
    spec: BotSpec,
    tmp: Path,
    tmp_bytes: int,
    hide: tuple[str, ...] = (),
    *,
    writable: bool = False,
    env: Mapping[str, str] | None = None,
    runtimes: Sequence[str] = (),
    seccomp_fd: int | None = None,
) -> list[str]:
    """The bubblewrap command line (up to ``--``) for ``spec`` with private temp ``tmp``.

    The view is fixed: the system folders, /etc's runtime entries, ``runtimes`` and the
    bot's own folder, nothing derived from the bot's files. One tmpfs of ``tmp_bytes``
    holds all of the bot's temp space: ``/tmp``, ``/dev/shm`` (a link into it) and
    HOME/TMPDIR. bubblewrap itself runs with the harness's environment; ``env`` (the
    bot's, its PATH cut to the view's entries unless its bot.toml sets one) is set
    only inside, after ``--clearenv``. ``seccomp_fd``: a readable fd holding
    :func:`harness.seccomp.program`, which the spawn must pass on.
    """
    folder = str(spec.folder)
    roots = (*view_roots(runtimes), os.path.realpath(folder))
    argv = [bwrap]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += [
        "--unshare-all",  # network, IPC, UTS, cgroup, user (and PID) namespaces
        "--unshare-user",
        "--unshare-pid",
        "--die-with-parent",
        "--new-session",  # no TIOCSTI into the referee's terminal
        "--cap-drop",
        "ALL",
        "--hostname",
        "llama",
    ]
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in etc_paths():
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        else:
            argv += ["--ro-bind", path, path]
    argv += ["--proc", "/proc", "--tmpfs", "/dev"]
    for node in DEV_NODES:
        if os.path.exists(f"/dev/{node}"):
            argv += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
    for target, link in DEV_LINKS:
        argv += ["--symlink", target, link]
    argv += ["--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    # HOME and TMPDIR name the host temp path: the same path inside, in the one tmpfs
    tmp_path = str(tmp)
    if tmp_path.startswith("/tmp/"):
        argv += ["--dir", tmp_path]
    else:
        inside = f"/tmp/{os.path.basename(tmp_path.rstrip('/')) or 'home'}"
        argv += ["--dir", inside, "--symlink", inside, tmp_path]
    # mounts apply in order: binds after the /tmp tmpfs, or one under /tmp would vanish
    # (a bot folder or a runtime in /tmp/...); a hidden folder inside a shown one is covered
    for path in runtimes:
        argv += ["--ro-bind", path, path]
    argv += ["--bind" if writable else "--ro-bind", folder, folder, "--chdir", folder]
    # after the bot's folder too: an output folder inside it (--out bots/mine/out) is covered
    shown = [path for path in roots if os.path.isdir(path) and not os.path.islink(path)]
    for path in dict.fromkeys(hide):
        if path != folder and os.path.isdir(path) and any(Path(path).is_relative_to(root) for root in shown):
            argv += ["--tmpfs", path]
    # the root and /dev are tmpfs that bubblewrap leaves writable: unbounded memory
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--clearenv"]
    values = dict(env or {})
    if "PATH" in values and "PATH" not in spec.env:
        values["PATH"] = view_path(values["PATH"], roots)
    for key, value in values.items():
        argv += ["--setenv", key, value]
    argv.append("--")
    return argv


# -- choosing -------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _bwrap_works(bwrap: str) -> str | None:
    """Run a trivial sandbox with the seccomp filter (once per process); return None if it works, else bubblewrap's complaint."""
    fd = seccomp.filter_fd()
    try:
        done = subprocess.run(
            [*bwrap_argv(bwrap, _PROBE, Path("/tmp/llama-probe"), MIB, seccomp_fd=fd), "/bin/true"],
            capture_output=True,
            timeout=10,
            check=False,
            pass_fds=(fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    finally:
        os.close(fd)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    return None


_PROBE = BotSpec(name="probe", version="0", folder=Path("/usr"), command=("/bin/true",))


# what each controller bounds, for the warning when it is missing
_CGROUP_LIMITS = {
    "cpu": "a bot and its children are not held to one core's share of the CPU (one bot can slow the others' clocks)",
    "memory": "memory is bounded per process by address space (RLIMIT_AS) instead of by what the bot uses",
    "pids": "the number of processes is not bounded (a fork bomb is stopped by its time-out)",
}
_warned: list[bool] = []


def _warn_cgroups() -> None:
    """Warn once per process, in one line, for each cgroup controller bots cannot be limited with."""
    gone = cgroups.missing()
    if gone and not _warned:
        _warned.append(True)
        what = "; ".join(f"{name}: {_CGROUP_LIMITS[name]}" for name in gone)
        print(
            f"warning: no writable cgroup controller for {', '.join(gone)} (needs root, or a delegated "
            f"cgroup v2): {what}",
            file=sys.stderr,
        )


def resolve_sandbox(
    mode: str, limits: Mapping[str, int] | None = None, runtimes: Sequence[str | Path] = ()
) -> Wrapper | None:
    """Return the wrapper for ``mode`` (auto, bwrap, none) with the league's ``limits`` and ``runtimes``.

    Raises HarnessError for an unknown mode or limit, a refused runtime root (see
    :func:`check_runtimes`), or ``bwrap`` when bubblewrap is missing or cannot run.
    ``auto`` without bubblewrap warns on stderr and limits only (runtimes then mean nothing).
    """
    if mode not in MODES:
        raise HarnessError(f"--sandbox {mode!r}: choose one of {', '.join(MODES)}")
    league = tuple(sorted(check_limits(limits or {}, "limits").items()))
    shown = check_runtimes(runtimes)
    prlimit = shutil.which("prlimit") or ("/usr/bin/prlimit" if os.path.exists("/usr/bin/prlimit") else None)
    if mode in ("auto", "bwrap"):
        bwrap = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
        problem = "bubblewrap (bwrap) is not installed" if bwrap is None else None
        if bwrap is not None:
            broken = _bwrap_works(bwrap)
            if broken is not None:
                problem = f"bubblewrap ({bwrap}) cannot create a sandbox here: {broken}"
        if problem is None and bwrap is not None:
            if prlimit is None:
                raise HarnessError(
                    "--sandbox: prlimit (util-linux) is not installed; it applies the resource limits"
                )
            _warn_cgroups()
            return Bubblewrap(bwrap, prlimit, league, runtimes=shown)
        if mode == "bwrap":
            raise HarnessError(f"--sandbox bwrap: {problem}")
        print(f"warning: {problem}; bots run without a sandbox: {MISSING}", file=sys.stderr)
    if prlimit is None:
        print("warning: prlimit (util-linux) not found: bots run without resource limits", file=sys.stderr)
        return None
    _warn_cgroups()
    return Limited(prlimit, league)


__all__ = [
    "MISSING",
    "MODES",
    "SYSTEM_PATHS",
    "Bubblewrap",
    "Limited",
    "bwrap_argv",
    "check_bots",
    "check_runtimes",
    "check_view",
    "hiding",
    "resolve_sandbox",
]
