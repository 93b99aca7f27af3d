"""The harness's exceptions: user errors (bad input) and bot faults (a recorded result)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ValidationError


class HarnessError(Exception):
    """Bad input to the harness (a manifest, a league file, a replay): one clear line."""


class FaultKind(StrEnum):
    TIMEOUT = "timeout"  # no reply before the deadline
    CRASH = "crash"  # the process exited, or closed stdout (EOF)
    MALFORMED = "malformed"  # not UTF-8, not JSON, or a line over the size limit
    INVALID = "invalid"  # JSON that does not validate against the protocol
    ILLEGAL = "illegal"  # a valid reply naming an action the rules forbid now
    STARTUP = "startup"  # the process could not be started


class BotFault(Exception):
    """A bot broke the protocol or the rules; recorded as a fault, never a crash."""

    kind: FaultKind = FaultKind.CRASH

    def __init__(self, detail: str, kind: FaultKind | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if kind is not None:
            self.kind = kind


class BotTimeout(BotFault):
    kind = FaultKind.TIMEOUT


class BotCrashed(BotFault):
    kind = FaultKind.CRASH


def one_line(err: ValidationError, most: int | None = None) -> str:
    """Summarise a pydantic error as ``field: message; ...`` on one line (``most`` items)."""
    return "; ".join(
        f"{'.'.join(str(p) for p in item['loc']) or '(top)'}: {item['msg']}" for item in err.errors()[:most]
    )
