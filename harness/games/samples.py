"""Where the shipped games find their sample bots (check-bot's opponents).

A checkout keeps them beside the package (an editable install); a package installed
from a checkout, as tox does, finds them in ./sample_bots.
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_BOTS = (Path(__file__).resolve().parents[2] / "sample_bots", Path("sample_bots"))


def sample_bots(*names: str) -> tuple[Path, ...]:
    """The sample bots called ``names``, from the first place that holds any of them (else none)."""
    for folder in SAMPLE_BOTS:
        found = tuple(folder / name for name in names if (folder / name / "bot.toml").is_file())
        if found:
            return found
    return ()


__all__ = ["SAMPLE_BOTS", "sample_bots"]
