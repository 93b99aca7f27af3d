"""A bot's fault as its author should read it: shared by check-bot and ``replay --at``.

Its own module so that :mod:`harness.checkbot` and :mod:`harness.replay.reproduce`,
which both show faults, import it rather than each other.
"""

from __future__ import annotations

from harness.errors import BotFault, FaultKind
from harness.protocol.session import EXITED_AFTER_END, NO_REPLY_NEEDED

# a hint per fault kind, unless the detail already names the cause (a time-out always does)
_HINTS = {
    FaultKind.CRASH: "the bot stopped: read its stderr",
    FaultKind.MALFORMED: "each reply must be one JSON object on one UTF-8 line",
    FaultKind.INVALID: "see docs/protocol.md for the reply fields",
    FaultKind.STARTUP: "check the command in bot.toml",
}


def explain(fault: BotFault, tail: str = "") -> str:
    """A fault as a bot author should read it: kind, detail, hint, the last stderr line."""
    text = f"{fault.kind.value}: {fault.detail}"
    hint = _HINTS.get(fault.kind)
    if hint and EXITED_AFTER_END not in fault.detail and NO_REPLY_NEEDED not in fault.detail:
        text += f" ({hint})"
    last = [line for line in tail.strip().splitlines() if line.strip()]
    if last:
        text += f"; its stderr ends with: {last[-1][:200]!r}"
    return text


__all__ = ["explain"]
