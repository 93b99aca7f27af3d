"""Sandboxes for bot processes (wrappers around the bot's command)."""

from __future__ import annotations

from harness.errors import HarnessError
from harness.match import Wrapper


def resolve_sandbox(mode: str) -> Wrapper | None:
    """Return the wrapper for ``mode``; ``none`` runs bots as plain processes."""
    if mode == "none":
        return None
    raise HarnessError(f"--sandbox {mode!r}: not available")
