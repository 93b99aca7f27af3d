"""The sandbox's view: what every bubblewrap-confined bot sees, and the early check that its program can start there.

The view is fixed: the system's runtime folders, the parts of /etc runtimes read, the
organiser's runtime roots and the bot's own folder. Nothing a bot's files say (a ``#!``
line, an ``env -S`` argument, a symlink, argv[0]) adds to it; :func:`check_view` reads
them only to tell the bot's author, in one line, what cannot start there.
"""

from __future__ import annotations

import functools
import glob
import os
from collections.abc import Sequence
from pathlib import Path

from harness.bots import shebang
from harness.bots.manifest import BotSpec
from harness.bots.process import bot_environment
from harness.errors import HarnessError

_HERE = Path(__file__).resolve().parent  # the harness package: never shown to a bot

# What every bot sees of the system, read-only: the runtime roots (a symlink such as
# /bin -> usr/bin is recreated). Nothing a bot's files say ever adds to it (a #! line,
# an ``env -S`` argument, a symlink, argv[0]); the organiser adds roots with ``runtimes``.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The parts of /etc that runtimes read (measured: the dynamic loader, Debian's
# alternatives (java, node), certificates, user and host lookups, time zone, the JDK's
# conf (its /usr/lib/jvm/*/conf files are links into /etc/java-*), Python's
# sitecustomize, perl's Net config). Not shown: shadow, ssh keys, ssl/private, machine-id,
# the package manager's and services' configuration, credentials.
ETC_ENTRIES = (
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "gai.conf",
    "group",
    "host.conf",
    "hosts",
    "java-*",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "perl",
    "protocols",
    "python3*",
    "services",
    "ssl/certs",
    "ssl/openssl.cnf",
    "timezone",
)
# /dev: these nodes and links only (a tmpfs of our own rather than ``--dev``, which
# makes /dev/shm a folder: here it is a link into the bot's one temp tmpfs)
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
DEV_LINKS = (
    ("/proc/self/fd", "/dev/fd"),
    ("/proc/self/fd/0", "/dev/stdin"),
    ("/proc/self/fd/1", "/dev/stdout"),
    ("/proc/self/fd/2", "/dev/stderr"),
    ("../tmp", "/dev/shm"),
)


@functools.lru_cache(maxsize=1)
def etc_paths() -> tuple[str, ...]:
    """The /etc entries of :data:`ETC_ENTRIES` that exist here (globs expanded), sorted."""
    found: set[str] = set()
    for entry in ETC_ENTRIES:
        found.update(glob.glob(os.path.join("/etc", entry)))
    return tuple(sorted(found))


def too_wide(root: str, hide: tuple[str, ...] = ()) -> str | None:
    """Why ``root`` may not be a runtime root (None if it may).

    ``/`` and every top folder (``/root``, ``/home``, ``/tmp``), a home folder, a
    folder holding the harness, or one holding a folder no bot may see or inside one
    (compared as resolved paths: ``hide`` is resolved too).
    """
    path = Path(root)
    if len(path.parts) <= 2:
        return "/ or a top folder"
    if path.parent == Path("/home") or Path.home().is_relative_to(path):
        return "a home folder"
    if _HERE.is_relative_to(path):
        return "it holds the harness"
    hidden = next((h for h in hide if Path(h).is_relative_to(path)), None)
    if hidden is not None:
        return f"it holds {hidden}, which no bot may see (the output folder or a bot's folder)"
    inside = next((h for h in hide if path.is_relative_to(h)), None)
    if inside is not None:  # bound after the hiding tmpfs, it would show that part of it
        return f"it is inside {inside}, which no bot may see (the output folder or a bot's folder)"
    return None


def check_runtimes(paths: Sequence[str | Path], where: str = "runtimes") -> tuple[str, ...]:
    """Resolve and check runtime roots to show every bot read-only; raise HarnessError naming one that is refused.

    A root must be an existing folder, and not ``/``, a top folder, a home folder or a
    folder holding the harness.
    """
    out: list[str] = []
    for given in paths:
        text = str(given)
        if not os.path.isabs(text):
            raise HarnessError(f"{where}: {text!r} is not an absolute path")
        real = os.path.realpath(text)
        if not os.path.isdir(real):
            raise HarnessError(f"{where}: {text!r} is not a folder")
        why = too_wide(real)
        if why is not None:
            raise HarnessError(f"{where}: {text!r} cannot be shown to bots: {why}")
        if real not in out:
            out.append(real)
    return tuple(out)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def view_roots(runtimes: Sequence[str] = ()) -> tuple[str, ...]:
    """Every folder of the view as resolved host paths: the system folders, /etc's shown entries, the runtimes."""
    system = {os.path.realpath(path) for path in SYSTEM_PATHS if os.path.exists(path)}
    return (*sorted(system), *etc_paths(), *runtimes)


def in_view(path: str, roots: Sequence[str]) -> bool:
    """True if ``path`` (absolute) is where the sandbox shows the same file: written and resolved, inside ``roots``.

    ``/proc`` is the sandbox's own (``/proc/self`` is the bot, not the harness):
    never judged from here.
    """
    if not os.path.isabs(path) or _inside(os.path.normpath(path), ("/proc", "/dev")):
        return False
    shown = (*SYSTEM_PATHS, *roots)
    return _inside(os.path.normpath(path), shown) and _inside(os.path.realpath(path), roots)


def view_path(path: str, roots: Sequence[str]) -> str:
    """The entries of a PATH that are inside the view (``/root/.pyenv/shims`` is not): the bot's PATH inside."""
    kept = [entry for entry in path.split(os.pathsep) if entry and in_view(entry, roots)]
    return os.pathsep.join(dict.fromkeys(kept)) or "/usr/bin:/bin"


def which_in_view(program: str, path: str, roots: Sequence[str]) -> str | None:
    """``program`` found on ``path`` as the sandbox finds it: an executable file inside the view."""
    for entry in path.split(os.pathsep):
        candidate = os.path.join(entry, program)
        if entry and in_view(candidate, roots) and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def check_view(spec: BotSpec, runtimes: Sequence[str] = ()) -> None:
    """Raise HarnessError (one line naming the bot) if the bot's program cannot start in the view.

    The program (argv[0], found on the view's PATH when bare) and each interpreter its
    ``#!`` lines name in turn (the kernel follows up to four), an ``env`` program
    included, must be inside the view or the bot's folder. Only tells: nothing read
    here is shown to the bot.
    """
    folder = os.path.realpath(spec.folder)
    roots = (*view_roots(runtimes), folder)
    env = bot_environment(spec, Path("/tmp"))
    path = env["PATH"] if "PATH" in spec.env else view_path(env["PATH"], roots)
    hint = "add its folder to runtimes (league file) or --runtime"
    name = spec.command[0]
    if os.sep in name:
        program = os.path.normpath(os.path.join(spec.folder, name))
        if not in_view(program, roots):
            raise HarnessError(
                f"bot {spec.name!r}: its command {name} is {os.path.realpath(program)}, not in the sandbox: {hint}"
            )
    else:
        found = which_in_view(name, path, roots)
        if found is None:
            raise HarnessError(f"bot {spec.name!r}: command {name!r} is not on the sandbox's PATH ({path}): {hint}")
        program = found
    for _ in range(4):
        try:
            line = shebang.read(program)
        except HarnessError as err:
            raise HarnessError(f"bot {spec.name!r}: {err}") from None
        if line is None:
            return
        interpreter = os.path.normpath(os.path.join(spec.folder, line.interpreter))
        if not in_view(interpreter, roots):
            raise HarnessError(
                f"bot {spec.name!r}: its #! interpreter {line.interpreter} is not in the sandbox: add it to runtimes"
            )
        if os.path.basename(interpreter) == "env":
            wanted = shebang.env_program(line.argument)
            if wanted is None:
                return
            if os.sep in wanted:
                found = wanted if in_view(wanted, roots) else None
            else:
                found = which_in_view(wanted, path, roots)
            if found is None:
                raise HarnessError(
                    f"bot {spec.name!r}: its #! line runs env {wanted}, not found in the sandbox "
                    f"(PATH {path}): add its folder to runtimes"
                )
            interpreter = found
        program = interpreter


__all__ = [
    "DEV_LINKS",
    "DEV_NODES",
    "ETC_ENTRIES",
    "SYSTEM_PATHS",
    "check_runtimes",
    "check_view",
    "etc_paths",
    "in_view",
    "too_wide",
    "view_path",
    "view_roots",
    "which_in_view",
]
