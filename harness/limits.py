"""Resource limits for bot processes: names, safe defaults, merging, ``prlimit`` flags.

A league (or ``match``) gives limits for every bot, the defaults filling the rest;
they are caps: a bot's ``bot.toml`` ``[limits]`` table may lower them for that bot,
never raise them. A value the kernel cannot apply is refused wherever it is given. Limits are applied with ``prlimit`` (util-linux) as
a wrapper in the bot's argv, so nothing runs between ``fork`` and ``exec`` in the
referee. ``processes`` is enforced with a pids cgroup when one can be created (see
:mod:`harness.sandbox`): ``RLIMIT_NPROC`` does not bind root.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.errors import HarnessError

MIB = 1 << 20
# set by --trust-bots (and read by harness.sandbox.resolve_sandbox in every process of
# a run, league workers too): run bots as root without a PID namespace in ``none``
TRUST_BOTS_ENV = "LLAMA_HARNESS_TRUST_BOTS"
MAX_SECONDS = 86_400.0  # a move or start-up clock: over a day is a typo (and past the OS's timeouts)

# name → (default, what it bounds); the names are the keys of bot.toml [limits]
LIMITS: dict[str, tuple[int, str]] = {
    "memory_mb": (2048, "memory the bot's processes use together, MiB (a memory cgroup; else RLIMIT_DATA per process)"),
    "cpu_seconds": (3600, "CPU seconds of each process over its whole life (RLIMIT_CPU)"),
    "open_files": (256, "open file descriptors per process (RLIMIT_NOFILE)"),
    "file_size_mb": (64, "largest file a process may write, MiB (RLIMIT_FSIZE)"),
    "processes": (64, "processes and threads of the bot at once (a pids cgroup, when available)"),
    "tmp_mb": (64, "size of the private writable temp folder in the sandbox, MiB"),
    "build_mb": (1024, "what a build may add to its bot folder in all, MiB"),
}
DEFAULTS: dict[str, int] = {name: default for name, (default, _) in LIMITS.items()}


def _read_int(path: str, default: int) -> int:
    try:
        with open(path, encoding="ascii") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return default


def maxima() -> dict[str, int]:
    """The largest value of each limit that the kernel can apply here."""
    largest = (1 << 63) - 1  # a cgroup's and a tmpfs's byte counts are signed 64-bit
    return {
        "memory_mb": largest // MIB,
        "cpu_seconds": largest - 1,  # the hard limit is one second more
        "open_files": _read_int("/proc/sys/fs/nr_open", 1 << 20),  # RLIMIT_NOFILE's ceiling
        "file_size_mb": largest // MIB,
        "processes": _read_int("/proc/sys/kernel/pid_max", 1 << 22) - 2,
        "tmp_mb": largest // MIB,
        "build_mb": largest // MIB,
    }


def check_limits(limits: Mapping[str, object], where: str) -> dict[str, int]:
    """Validate a limits table; raise HarnessError naming ``where`` and the bad entry."""
    checked: dict[str, int] = {}
    largest = maxima()
    for name, value in limits.items():
        if name not in LIMITS:
            known = ", ".join(sorted(LIMITS))
            raise HarnessError(f"{where}: unknown limit {name!r} (known: {known})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise HarnessError(f"{where}: limit {name} must be a positive integer, got {value!r}")
        if value > largest[name]:
            raise HarnessError(
                f"{where}: limit {name} = {value} cannot be applied on this machine (at most {largest[name]})"
            )
        checked[name] = value
    return checked


def merge_limits(league: Mapping[str, int], bot: Mapping[str, int], bot_name: str = "bot") -> dict[str, int]:
    """Defaults, then the league's limits, then the bot's own, which may only lower them.

    Raises HarnessError (one line naming the bot, ``bot.toml`` and the field) for a bad
    value or one above the league's.
    """
    caps = dict(DEFAULTS)
    given = check_limits(league, "limits")
    caps.update(given)
    where = f"bot {bot_name!r}: bot.toml [limits]"
    own = check_limits(bot, where)
    for name, value in own.items():
        if value > caps[name]:
            whose = "the league's limit" if name in given else "the default limit"
            raise HarnessError(
                f"{where}: {name} = {value} is above {whose} of {caps[name]}; a bot may lower a "
                "limit, never raise it (the organiser sets it in the league file's [limits])"
            )
    return {**caps, **own}


def prlimit_args(limits: Mapping[str, int], private_memory: bool = True) -> list[str]:
    """The ``prlimit`` options (soft = hard) for merged ``limits``.

    ``private_memory``: bound memory with RLIMIT_DATA, the fallback where no memory
    cgroup bounds what the bot uses. Not RLIMIT_AS: a JVM reserves more address space
    than it uses and cannot start under an address-space limit of 2 GiB (measured:
    ``prlimit --as=2G java -version`` fails, ``--data=2G`` starts, and under it a 3 GiB
    ``malloc``, a Python ``bytearray`` or 4 GB of Node Buffers are refused, while a
    Go-style ``PROT_NONE`` reservation is free and only what is made writable counts).
    RLIMIT_DATA does not count shared mappings or files in a tmpfs: it is advisory.
    """
    # no --nproc: RLIMIT_NPROC counts every process of the user (the referee's too)
    # and does not bind root; ``processes`` is a pids cgroup instead
    memory = [f"--data={limits['memory_mb'] * MIB}"] if private_memory else []
    return [
        *memory,
        # soft < hard: SIGXCPU first, then SIGKILL a second later if it is ignored
        f"--cpu={limits['cpu_seconds']}:{limits['cpu_seconds'] + 1}",
        f"--nofile={limits['open_files']}",
        f"--fsize={limits['file_size_mb'] * MIB}",
        "--core=0",
    ]


__all__ = ["DEFAULTS", "LIMITS", "MAX_SECONDS", "TRUST_BOTS_ENV", "check_limits", "maxima", "merge_limits", "prlimit_args"]
