"""Sandboxes for bot processes: an argv prefix that confines the bot's command.

``resolve_sandbox(mode, limits, runtimes)`` returns a :class:`harness.sandbox_types.Sandbox`, a picklable
frozen dataclass (the league ships it to worker processes):

* ``none`` – :class:`Limited`: resource limits only (``prlimit``, the bot's cgroups),
  and its own PID namespace (``unshare``) so nothing it starts outlives it;
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
import pwd
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness import cgroups, seccomp
from harness.bots.manifest import BotSpec, resolve_program
from harness.bots.process import KILL_CHILD, Prefix, bot_environment, env_argv, harness_environment
from harness.errors import HarnessError
from harness.limits import MIB, TRUST_BOTS_ENV, check_limits, merge_limits, prlimit_args
from harness.sandbox_types import Wrapper
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
# what ``none`` lacks when each bot has its own PID namespace
UNCONFINED = "no network isolation, a full view of the filesystem (the output folder, other bots, the harness)"


# -- limits: prlimit and the bot's cgroups ----------------------------------------------


def _limits_prefix(
    spec: BotSpec, league: Mapping[str, int], prlimit: str
) -> tuple[list[str], dict[str, int]]:
    limits = merge_limits(league, spec.limits, spec.name)
    groups = cgroups.new_groups(spec.name, limits)
    # memory: what the bot uses, in its cgroup; private memory per process only where there is none
    private_memory = "memory" not in groups.controllers
    return [*groups.join_argv(), prlimit, *prlimit_args(limits, private_memory), "--"], limits


@dataclass(frozen=True)
class Limited:
    """No sandbox: the bot runs as a plain process under resource limits.

    ``namespace`` (``unshare … --pid --fork --kill-child``, see :func:`pid_namespace`)
    gives the bot its own PID namespace: killing the bot kills everything it started,
    whatever cgroup or session a descendant moved to.
    """

    prlimit: str
    limits: tuple[tuple[str, int], ...] = ()
    namespace: tuple[str, ...] = ()

    def __call__(self, spec: BotSpec, tmp: Path) -> list[str]:
        prefix, _ = _limits_prefix(spec, dict(self.limits), self.prlimit)
        # the program that follows: the bot's, or its build's (a build is wrapped by this too)
        programs = [resolve_program(spec.folder, words[0]) for words in (spec.command, spec.build) if words]
        return [*prefix, *self.namespace, *env_argv(bot_environment(spec, tmp), programs)]

    def for_build(self, spec: BotSpec, tmp: Path, room: int = 0) -> list[str] | None:
        """None: no view of its own; a build runs in a copy of the folder, under this prefix."""
        return None


@functools.lru_cache(maxsize=2)
def pid_namespace(unshare: str | None) -> tuple[tuple[str, ...], str | None]:
    """The ``unshare`` argv prefix giving a bot its own PID namespace, or () and why not.

    As root: ``--pid``; otherwise an unprivileged user namespace too (``--user
    --map-current-user``: the bot keeps its uid). ``--fork``: the bot is the namespace's
    init, so when it dies the kernel kills every process in it; ``--kill-child``: and
    it dies with ``unshare``, the process the referee kills. Probed once per process.
    """
    if unshare is None:
        return (), "unshare (util-linux) is not installed"
    user = () if os.geteuid() == 0 else ("--user", "--map-current-user")
    argv = (unshare, *user, "--pid", "--fork", KILL_CHILD)
    try:
        done = subprocess.run(
            [*argv, "/bin/true"], capture_output=True, timeout=10, check=False, env=harness_environment()
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return (), f"{unshare} cannot start: {err}"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return (), f"{' '.join(argv)} fails here: {lines[-1] if lines else f'exit status {done.returncode}'}"
    return argv, None


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

    def for_build(self, spec: BotSpec, tmp: Path, room: int = 0) -> list[str]:
        """The sandbox for the build command: the bot's view, its own folder read-only, and a build space.

        The build space is a tmpfs at :data:`BUILD_DIR` of ``room`` bytes (the folder's
        copy) plus the bot's ``build_mb``, the build's working folder (see harness.bots.build).
        """
        builder = dataclasses.replace(spec, command=spec.build or spec.command)
        prefix, limits = _limits_prefix(builder, dict(self.limits), self.prlimit)
        env = bot_environment(builder, tmp)
        argv = bwrap_argv(
            self.bwrap, builder, tmp, limits["tmp_mb"] * MIB, self.hide, env=env, runtimes=self.runtimes
        )
        return [*prefix, *build_space(argv, room + limits["build_mb"] * MIB)]

    def check(self, spec: BotSpec) -> None:
        """Raise HarnessError (one line) if the bot's program or a #! interpreter is not in the view."""
        check_view(spec, self.runtimes)


BUILD_DIR = "/build"  # where a build runs inside bubblewrap: a tmpfs of the build's size


def build_space(argv: list[str], size: int) -> list[str]:
    """``argv`` (a bubblewrap command line up to ``--``) with a ``size``-byte tmpfs at BUILD_DIR as its working folder.

    Inserted before the first ``--remount-ro`` (a mount point cannot be made in a root
    already read-only); the bot's ``--chdir`` is dropped (bubblewrap warns of two).
    """
    out: list[str] = []
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg == "--chdir" and index + 1 < len(argv):
            skip = True
            continue
        out.append(arg)
    space = ["--size", str(size), "--tmpfs", BUILD_DIR, "--chdir", BUILD_DIR]
    for marker in ("--remount-ro", "--clearenv"):
        if marker in out:
            at = out.index(marker)
            return [*out[:at], *space, *out[at:]]
    at = len(out) - 1 if out and out[-1] == "--" else len(out)
    return [*out[:at], *space, *out[at:]]

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
    "memory": (
        "memory is bounded per process by private memory (RLIMIT_DATA: shared mappings and tmpfs files "
        "are not counted) instead of by what the bot's processes use together"
    ),
    "pids": "the number of processes is not bounded (a fork bomb is stopped by its time-out)",
}
# what holds in every case: prlimit's rlimits, per process (a non-root bot cannot raise them)
_RLIMITS = "CPU seconds, open files and file size per process (rlimits)"
_warned: list[str] = []  # the lines printed: each once per process


def _warn_cgroups(unconfined: str | None = None) -> None:
    """Warn once per process, in one line: ``unconfined`` (what a bot runs without), then the
    cgroup controllers bots cannot be limited with, which limits hold, and how to get the rest.
    """
    gone = cgroups.missing()
    parts = [unconfined] if unconfined else []
    if gone:
        what = "; ".join(f"{name}: {_CGROUP_LIMITS[name]}" for name in gone)
        held = [name for name in cgroups.CONTROLLERS if name not in gone]
        parts.append(
            f"no writable cgroup controller for {', '.join(gone)} ({cgroups.advice()}): {what}; what holds: {_RLIMITS}"
            + (f", and the cgroup limits on {', '.join(held)}" if held else "")
            + "; see 'Limits without root' in docs/sandbox.md"
        )
    line = "; ".join(parts)
    if line and line not in _warned:
        _warned.append(line)
        print(f"warning: {line}", file=sys.stderr)


def _who() -> str:
    """The user bots run as without a sandbox ("root", "tester (uid 1001)")."""
    uid = os.geteuid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = f"uid {uid}"
    return "root" if uid == 0 else f"{name} (uid {uid})"


def _unsandboxed(prlimit: str, league: tuple[tuple[str, int], ...], why: str, trust_bots: bool) -> Limited:
    """``none``: limits, a PID namespace per bot, and one warning line saying what that leaves open.

    Raises HarnessError as root when no PID namespace can be made, unless ``trust_bots``:
    a bot could then leave its cgroups and outlive the match.
    """
    namespace, problem = pid_namespace(shutil.which("unshare") or _existing("/usr/bin/unshare"))
    if not namespace and os.geteuid() == 0 and not trust_bots:
        raise HarnessError(
            f"--sandbox none as root: no PID namespace for the bots ({problem}), so a bot could leave its "
            "cgroups and outlive the match; use --sandbox bwrap, run as another user, or give --trust-bots"
        )
    held = (
        "each in its own PID namespace (nothing it starts outlives it)"
        if namespace
        else f"without a PID namespace ({problem}): a bot can see and signal other processes"
    )
    advisory = "advisory limits (a bot running as root can lift them)" if os.geteuid() == 0 else "advisory limits"
    _warn_cgroups(f"{why}: bots run as {_who()} with {advisory}, {UNCONFINED}, {held}")
    return Limited(prlimit, league, namespace)


def _existing(path: str) -> str | None:
    return path if os.path.exists(path) else None


def resolve_sandbox(
    mode: str,
    limits: Mapping[str, int] | None = None,
    runtimes: Sequence[str | Path] = (),
    *,
    trust_bots: bool = False,
) -> Wrapper | None:
    """Return the wrapper for ``mode`` (auto, bwrap, none) with the league's ``limits`` and ``runtimes``.

    Raises HarnessError for an unknown mode or limit, a refused runtime root (see
    :func:`check_runtimes`), or ``bwrap`` when bubblewrap is missing or cannot run,
    or ``none`` as root without a PID namespace unless ``trust_bots`` (or
    ``--trust-bots``: the TRUST_BOTS_ENV variable). ``auto`` without bubblewrap is
    ``none`` (runtimes then mean nothing); ``none`` warns once on stderr, in one line,
    of what a bot runs without.
    """
    if mode not in MODES:
        raise HarnessError(f"--sandbox {mode!r}: choose one of {', '.join(MODES)}")
    league = tuple(sorted(check_limits(limits or {}, "limits").items()))
    shown = check_runtimes(runtimes)
    prlimit = shutil.which("prlimit") or _existing("/usr/bin/prlimit")
    why = "--sandbox none"
    if mode in ("auto", "bwrap"):
        bwrap = shutil.which("bwrap") or _existing("/usr/bin/bwrap")
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
        why = f"{problem}, so no sandbox"
    if prlimit is None:
        print("warning: prlimit (util-linux) not found: bots run without resource limits", file=sys.stderr)
        return None
    return _unsandboxed(prlimit, league, why, trust_bots or os.environ.get(TRUST_BOTS_ENV) == "1")


__all__ = [
    "BUILD_DIR",
    "MISSING",
    "MODES",
    "SYSTEM_PATHS",
    "UNCONFINED",
    "Bubblewrap",
    "Limited",
    "build_space",
    "bwrap_argv",
    "check_bots",
    "check_runtimes",
    "check_view",
    "hiding",
    "pid_namespace",
    "resolve_sandbox",
]
