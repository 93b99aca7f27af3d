"""Sandboxes for bot processes: an argv prefix that confines the bot's command.

``resolve_sandbox(mode, limits)`` returns a :data:`harness.match.Wrapper`, a picklable
frozen dataclass (the league ships it to worker processes):

* ``none`` – :class:`Limited`: resource limits only (``prlimit``, a pids cgroup);
* ``bwrap`` – :class:`Bubblewrap`: the same limits, and bubblewrap gives the bot no
  network, a read-only view of the system, its own folder read-only, a private
  size-bounded temp, its own PID namespace, no capabilities, and death with the referee;
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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness import cgroups
from harness.bots.manifest import BotSpec, read_regular, resolve_program
from harness.bots.process import bot_environment, env_argv
from harness.errors import HarnessError
from harness.limits import MIB, check_limits, merge_limits, prlimit_args
from harness.match import Wrapper

MODES = ("auto", "bwrap", "none")
# what a bot may see of the system, read-only (symlinks such as /bin -> usr/bin are recreated)
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
MISSING = (
    "no network isolation, a full view of the filesystem (the output folder, other bots, "
    "the harness), no PID namespace (a bot can see and signal other processes)"
)
_HERE = Path(__file__).resolve().parent  # the harness package: never shown to a bot


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
        # the program that follows: the bot's, or its build's (a build is wrapped by this too)
        programs = [resolve_program(spec.folder, words[0]) for words in (spec.command, spec.build) if words]
        return [*prefix, *env_argv(bot_environment(spec, tmp), programs)]


# -- bubblewrap ------------------------------------------------------------------------


def _is_system(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in SYSTEM_PATHS)


def _shebang(path: str) -> str | None:
    """The interpreter a script names on its ``#!`` line (``env X`` resolved on PATH)."""
    try:  # a regular file only: opening a FIFO to read would block the harness
        first = read_regular(path, 256).split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return shutil.which(rest[0]) if rest else None
    return words[0]


def _root_of(path: str) -> str:
    """The folder to show for a program outside the system folders.

    A tool manager's folder (``~/.pyenv``, ``~/.nvm``: the first hidden component),
    else an installation prefix (the parent of ``bin``), else the program's folder.
    """
    parts = Path(path).parts
    for index, part in enumerate(parts[1:-1], 1):
        if part.startswith("."):
            return str(Path(*parts[: index + 1]))
    parent = Path(path).parent
    return str(parent.parent if parent.name == "bin" else parent)


def _too_wide(root: str, hide: tuple[str, ...]) -> bool:
    """True for a folder that shows more than a program's own installation.

    ``/`` and every top folder (``/root``, ``/home``, ``/tmp``), a home folder, a
    folder holding the harness, or one holding a folder no bot may see (compared as
    resolved paths: ``hide`` is resolved too).
    """
    path = Path(root)
    return (
        len(path.parts) <= 2
        or path.parent == Path("/home")
        or Path.home().is_relative_to(path)
        or _HERE.is_relative_to(path)
        or any(Path(hidden).is_relative_to(path) for hidden in hide)
    )


def _shown_for(program: str, hide: tuple[str, ...]) -> str | None:
    """The narrowest-sufficient existing path to show for ``program``: its installation, its folder, or itself."""
    for root in (_root_of(program), os.path.dirname(program), program):
        if os.path.exists(root) and not _too_wide(root, hide):
            return root
    return None


def interpreter_roots(spec: BotSpec, hide: tuple[str, ...] = ()) -> list[str]:
    """Paths outside the system folders that the bot's program needs (e.g. a pyenv Python).

    Every path is resolved before it is judged (``#!/tmp/../usr/bin/python3`` is
    ``/usr/bin/python3``; a symlinked ``argv[0]`` is its target), only existing paths
    are shown, and never ``/``, a top or home folder, the harness, or a parent of
    a folder in ``hide`` (a narrower path is shown instead).
    """
    folder = Path(os.path.realpath(spec.folder))
    roots: list[str] = []
    seen: set[str] = set()
    todo = [resolve_program(spec.folder, spec.command[0])]
    while todo and len(seen) < 8:
        path = todo.pop()
        if not os.path.isabs(path):
            continue
        real = os.path.realpath(path)
        if real in seen or not os.path.isfile(real):
            continue
        seen.add(real)
        # where the kernel finds it (its folders resolved, a venv's python3 symlink kept), and its target
        located = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        for candidate in dict.fromkeys((located, real)):
            if _is_system(candidate) or Path(candidate).is_relative_to(folder):
                continue
            root = _shown_for(candidate, hide)
            if root is not None and root not in roots:
                roots.append(root)
        interpreter = _shebang(real)
        if interpreter:
            todo.append(interpreter)
    return roots


@dataclass(frozen=True)
class Bubblewrap:
    """Bubblewrap around the bot, plus the resource limits of :class:`Limited`.

    ``hide`` names folders no bot may see (the output folder, every bot's folder):
    covered with an empty tmpfs wherever a folder shown to the bot would contain them.
    """

    bwrap: str
    prlimit: str
    limits: tuple[tuple[str, int], ...] = ()
    hide: tuple[str, ...] = ()

    def __call__(self, spec: BotSpec, tmp: Path) -> list[str]:
        prefix, limits = _limits_prefix(spec, dict(self.limits), self.prlimit)
        env = bot_environment(spec, tmp)
        return [*prefix, *bwrap_argv(self.bwrap, spec, tmp, limits["tmp_mb"] * MIB, self.hide, env=env)]

    def for_build(self, spec: BotSpec, tmp: Path) -> list[str]:
        """The same sandbox for the build command, with the bot's own folder writable."""
        builder = dataclasses.replace(spec, command=spec.build or spec.command)
        prefix, limits = _limits_prefix(builder, dict(self.limits), self.prlimit)
        env = bot_environment(builder, tmp)
        argv = bwrap_argv(self.bwrap, builder, tmp, limits["tmp_mb"] * MIB, self.hide, writable=True, env=env)
        return [*prefix, *argv]


def hiding(wrapper: Wrapper | None, *paths: Path) -> Wrapper | None:
    """``wrapper`` that also hides ``paths`` from every bot (a no-op without bubblewrap)."""
    if not isinstance(wrapper, Bubblewrap):
        return wrapper
    extra = tuple(str(Path(path).resolve()) for path in paths)
    return dataclasses.replace(wrapper, hide=(*wrapper.hide, *extra))


def bwrap_argv(
    bwrap: str,
    spec: BotSpec,
    tmp: Path,
    tmp_bytes: int,
    hide: tuple[str, ...] = (),
    *,
    writable: bool = False,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The bubblewrap command line (up to ``--``) for ``spec`` with private temp ``tmp``.

    bubblewrap itself runs with the harness's environment; ``env`` (the bot's) is set
    only inside, after ``--clearenv``.
    """
    size = str(tmp_bytes)
    argv = [
        bwrap,
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
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp"]
    # HOME and TMPDIR name the host temp path: the same path, private, inside
    tmp_path = str(tmp)
    argv += ["--dir", tmp_path] if tmp_path.startswith("/tmp/") else ["--size", size, "--tmpfs", tmp_path]
    # mounts apply in order: binds after the /tmp tmpfs, or one under /tmp would vanish
    # (a clone and its virtualenv in /tmp/...)
    roots = interpreter_roots(spec, hide)
    for root in roots:
        argv += ["--ro-bind", root, root]
    folder = str(spec.folder)
    # e.g. an interpreter in ~/bin shows all of ~, and with it a league folder in ~
    shown = [*roots, *(p for p in SYSTEM_PATHS if os.path.isdir(p) and not os.path.islink(p))]
    for path in dict.fromkeys(hide):
        if path != folder and os.path.isdir(path) and any(Path(path).is_relative_to(root) for root in shown):
            argv += ["--tmpfs", path]
    argv += ["--bind" if writable else "--ro-bind", folder, folder, "--chdir", folder]
    # the root and /dev are tmpfs that bubblewrap leaves writable: unbounded memory
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--clearenv"]
    for key, value in (env or {}).items():
        argv += ["--setenv", key, value]
    argv.append("--")
    return argv


# -- choosing -------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _bwrap_works(bwrap: str) -> str | None:
    """Run a trivial sandbox (once per process); return None if it works, else bubblewrap's complaint."""
    try:
        done = subprocess.run(
            [*bwrap_argv(bwrap, _PROBE, Path("/tmp/llama-probe"), MIB), "/bin/true"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
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


def resolve_sandbox(mode: str, limits: Mapping[str, int] | None = None) -> Wrapper | None:
    """Return the wrapper for ``mode`` (auto, bwrap, none) with the league's ``limits``.

    Raises HarnessError for an unknown mode or limit, or ``bwrap`` when bubblewrap is
    missing or cannot run. ``auto`` without bubblewrap warns on stderr and limits only.
    """
    if mode not in MODES:
        raise HarnessError(f"--sandbox {mode!r}: choose one of {', '.join(MODES)}")
    league = tuple(sorted(check_limits(limits or {}, "limits").items()))
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
            return Bubblewrap(bwrap, prlimit, league)
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
    "Bubblewrap",
    "Limited",
    "bwrap_argv",
    "hiding",
    "interpreter_roots",
    "resolve_sandbox",
]
