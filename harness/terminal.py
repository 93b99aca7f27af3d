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


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


__all__ = ["printable"]
