"""What check-bot says of a fault: kind, detail and hint, the end of the bot's stderr, its log, capped lists.

Written for bot authors; every function here is pure text but :func:`log_tail` and
:func:`build_failure`, which read a log.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.errors import BotFault, FaultKind
from harness.protocol.session import EXITED_AFTER_END, NO_REPLY_NEEDED

BUILD_TAIL = 15  # lines of a failed build's log shown inline
STDERR_TAIL = 15  # lines of a faulty bot's stderr shown inline
LEGAL_SHOWN = 8  # legal choices named in one line (a Llama Llama turn may have 35)
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


def log_tail(log: Path, size: int = 16 * 1024) -> str:
    """The end of a stderr log ("" where it cannot be read)."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, fh.seek(0, 2) - size))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def legal_text(legal: Sequence[str], cap: int = LEGAL_SHOWN) -> str:
    """The legal choices, at most ``cap`` of them, then how many more."""
    if len(legal) <= cap:
        return ", ".join(legal)
    return f"{', '.join(legal[:cap])} and {len(legal) - cap} more"


def build_failure(error: str, log: Path) -> str:
    """The build's error, then the last lines of its log, indented under the FAIL line."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, fh.seek(0, 2) - 64 * 1024))
            lines = fh.read().decode("utf-8", "replace").splitlines()[-BUILD_TAIL:]
    except OSError:
        return error
    if not lines:
        return f"{error}; the log is empty"
    shown = "\n".join(f"    | {line[:300]}" for line in lines)
    return f"{error}; the log is kept, and ends with:\n{shown}"


__all__ = ["FLUSH_HINT", "LEGAL_SHOWN", "STDERR_TAIL", "build_failure", "explain", "legal_text", "log_tail"]
