"""Text from bots, made safe for a terminal: control characters are shown, never obeyed."""

from __future__ import annotations

import re

# C0 controls but newline and tab, DEL, C1 controls, and the bidirectional overrides
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character escaped (``ESC`` becomes ``\\x1b``), lines kept.

    Bot names, versions, fault details and stderr tails go through this before they
    are printed: an OSC title sequence or ``ESC[2J`` from a bot is shown, not run.
    """
    return _CONTROL.sub(lambda match: _escape(match.group()), text)


_LINE_BREAKS = re.compile("[\n\r\t\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def inline(text: str) -> str:
    """``text`` on one line: what :func:`printable` escapes, and every line break and tab too.

    For one bot-supplied string (a version, a fault detail, a stderr tail) placed inside
    a line the harness prints: a newline in it would print as a line of its own (a
    forged table row), so it is shown as ``\\n``; ``\\`` is left alone.
    """
    return printable(_LINE_BREAKS.sub(lambda match: _SHORT.get(match.group()) or _escape(match.group()), text))


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


__all__ = ["inline", "printable"]
