"""The size of what a bot is started with: its argv and environment, checked when its bot.toml is read.

The kernel refuses an ``execve`` whose arguments and environment together pass
``ARG_MAX`` (a quarter of the stack limit, never under 128 KiB) or with one string
over ``MAX_ARG_STRLEN`` (128 KiB): the first wrapper would fail with "Argument list
too long", naming no bot. The cap is half the smallest ``ARG_MAX`` the kernel allows,
so a bot under a low stack limit starts too, and the wrappers' own words fit beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.errors import HarnessError

ARG_CAP = 64 << 10  # bytes of command, build and env together (each string with its NUL)


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogateescape")) + 1


def check_arg_size(
    where: str, command: Sequence[str], build: Sequence[str] | None, env: Mapping[str, str]
) -> None:
    """Raise HarnessError naming ``where`` (the bot and its bot.toml) when the sum is over ARG_CAP.

    The message names the largest entry, the one to shorten.
    """
    entries = [(f"command[{i}]", _size(arg)) for i, arg in enumerate(command)]
    entries += [(f"build[{i}]", _size(arg)) for i, arg in enumerate(build or ())]
    entries += [(f"env.{key}", _size(f"{key}={value}")) for key, value in env.items()]
    total = sum(size for _, size in entries)
    if total > ARG_CAP:
        largest, size = max(entries, key=lambda entry: entry[1])
        raise HarnessError(
            f"{where}: command, build and env come to {total} bytes, over the {ARG_CAP >> 10} KiB a bot may "
            f"be started with (largest: {largest}, {size} bytes)"
        )


__all__ = ["ARG_CAP", "check_arg_size"]
