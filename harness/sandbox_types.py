"""What a sandbox is to the rest of the harness: an argv prefix for a bot, and how it builds one.

The table layer (:mod:`harness.match`), the builds and the league take a :data:`Wrapper`:
any callable that turns a bot and its private temp folder into an argv prefix. The
harness's own sandboxes (:mod:`harness.sandbox`: ``Limited``, ``Bubblewrap``) are also a
:class:`Sandbox`, which a build asks for the league's limits and for its own prefix.
This module imports nothing of the harness but the bot's spec, so every layer can use it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

from harness.bots.manifest import BotSpec

# A wrapper turns a bot and its private temp folder into an argv prefix (a sandbox).
Wrapper = Callable[[BotSpec, Path], list[str]]


@runtime_checkable
class Sandbox(Protocol):
    """A wrapper the harness made: it knows the league's limits and how a build runs in it."""

    def __call__(self, spec: BotSpec, tmp: Path) -> list[str]: ...

    @property
    def limits(self) -> tuple[tuple[str, int], ...]:
        """The league's limits (name, value) the sandbox applies, before a bot's own."""
        ...

    def for_build(self, spec: BotSpec, tmp: Path, room: int = 0) -> list[str] | None:
        """The argv prefix that runs a build of ``spec`` inside the sandbox's view, ``room`` bytes of it writable.

        None: the sandbox has no view of its own, and the build runs in a copy of the
        bot's folder under the bot's prefix (``harness.bots.build``).
        """
        ...


__all__ = ["Sandbox", "Wrapper"]
