"""What check-bot says of a fault: kind, detail and hint, the end of the bot's stderr, its log, capped lists.

Written for bot authors; every function here is pure text but :func:`log_tail` and
:func:`build_failure`, which read a log.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.fault_text import FLUSH_HINT, STDERR_TAIL, explain  # re-exported: check-bot's texts in one place

BUILD_TAIL = 15  # lines of a failed build's log shown inline
LEGAL_SHOWN = 8  # legal choices named in one line (a Llama Llama turn may have 35)


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
