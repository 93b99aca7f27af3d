"""A bot's fault as its author should read it: shared by check-bot and ``replay --at``.

Its own module so that :mod:`harness.checkbot` and :mod:`harness.replay.reproduce`,
which both show faults, import it rather than each other.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import BotFault, FaultKind
from harness.protocol.session import EXITED_AFTER_END, NO_REPLY_NEEDED

STDERR_TAIL = 15  # lines of a faulty bot's stderr shown inline
FLUSH_HINT = "write one line per reply and flush stdout after it"  # the session's time-out advice
# a hint per fault kind, unless the detail already names the cause (a time-out always does)
_HINTS = {
    FaultKind.CRASH: "the bot stopped: read its stderr",
    FaultKind.MALFORMED: "each reply must be one JSON object on one UTF-8 line",
    FaultKind.INVALID: "see docs/protocol.md for the reply fields",
    FaultKind.STARTUP: "check the command in bot.toml",
}


def explain(fault: BotFault, tail: str = "", log: Path | None = None, partial: int = 0, then: str = "") -> str:
    """A fault as a bot author should read it: kind, detail, hint, the last lines of its stderr, its log.

    ``partial``: bytes the bot wrote without a newline; the flush advice of a time-out
    is kept only when it wrote nothing at all (else it is told to end the line).
    ``then``: more to say before the stderr (a command to replay the turn).
    """
    detail = fault.detail
    if FLUSH_HINT in detail and partial:
        detail = detail.replace(
            FLUSH_HINT, f"it wrote {partial} bytes but no newline: end each reply with a newline, then flush stdout"
        )
    text = f"{fault.kind.value}: {detail}"
    hint = _HINTS.get(fault.kind)
    if hint and EXITED_AFTER_END not in fault.detail and NO_REPLY_NEEDED not in fault.detail:
        text += f" ({hint})"
    text += then
    lines = tail.rstrip().splitlines()[-STDERR_TAIL:]
    if any(line.strip() for line in lines):
        shown = "\n".join(f"    | {line[:200]}" for line in lines)
        where = f" (full log: {log})" if log is not None else ""
        return f"{text}; its stderr ends with{where}:\n{shown}"
    if log is not None:
        text += f"; it wrote nothing to stderr (log: {log})"
    return text


__all__ = ["FLUSH_HINT", "STDERR_TAIL", "explain"]
