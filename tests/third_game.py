"""Registers the third game, rock-paper-scissors (tests/games/rps), for the tests alone.

Imported by tests/conftest.py before the harness: the folder goes into
``LLAMA_HARNESS_GAMES``, so this process, the league's workers and every
``python -m harness`` the tests start know the game.
"""

from __future__ import annotations

import os
from pathlib import Path

RPS = Path(__file__).resolve().parent / "games" / "rps"
_given = [entry for entry in os.environ.get("LLAMA_HARNESS_GAMES", "").split(os.pathsep) if entry]
os.environ["LLAMA_HARNESS_GAMES"] = os.pathsep.join(dict.fromkeys([*_given, str(RPS)]))
