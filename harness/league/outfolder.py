"""The output folder and the bots' folders never nest.

A league folder holds the league's secret and results (``league.db``, ``secret``,
``replays/``). A bot runs from its own folder, visible to it: an output folder inside
a bot's folder would show the bot the secret, and a bot's folder inside the output
folder would put the bot's files among the results (and a hidden league folder would
hide the bot from itself). Both are refused before anything is built or written.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.bots.manifest import BotSpec
from harness.errors import HarnessError


def check_out(out: Path, bots: Iterable[BotSpec]) -> None:
    """Raise HarnessError, naming both folders, if ``out`` and a bot's folder nest (resolved paths)."""
    where = out.resolve()
    for bot in bots:
        folder = Path(bot.origin).resolve()  # the organiser's folder, not its snapshot (which lives in --out)
        if where.is_relative_to(folder):
            raise HarnessError(
                f"--out {out}: inside the folder of bot {bot.name!r} ({folder}), which the bot can read "
                "(the league's secret and results with it); choose an --out outside every bot's folder"
            )
        if folder.is_relative_to(where):
            raise HarnessError(
                f"--out {out}: holds the folder of bot {bot.name!r} ({folder}); choose an --out that "
                "holds no bot's folder"
            )


__all__ = ["check_out"]
