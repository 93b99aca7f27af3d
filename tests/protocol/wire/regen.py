"""Regenerate the wire golden file: ``python tests/protocol/wire/regen.py``.

The file holds every byte each L.L.A.M.A. bot received over two seeded matches of
real bot processes (recorded by the bots themselves, on their stderr). Protocol v1
promises these bytes never change: regenerate only for an intended protocol change,
and review the diff.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "llama-v1-wire.txt"
# (players, games, rules, seed, {bot index: (cheat game, cheat turn)})
MATCHES = (
    (4, 4, {"variant": "komary", "next_starter": "last_play", "end_score": 80}, 11, {2: (2, 2)}),
    (2, 2, {"next_starter": "rotate", "end_score": 25}, 5, {}),
)


def _helpers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_llama_wire_helpers", HERE.parents[1] / "helpers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(root: Path) -> str:
    """Play the matches with recorder bots; return what each bot received, bot by bot."""
    from harness.bots.manifest import load_bot
    from harness.games import get_game
    from harness.match import Clock, MatchConfig, TableSettings, run_match

    helpers = _helpers()
    game = get_game("llama")
    parts = []
    for number, (players, games, rules, seed, cheats) in enumerate(MATCHES, 1):
        out = root / f"match{number}"
        bots = []
        for index in range(players):
            env = {}
            if index in cheats:
                env = {"CHEAT_GAME": str(cheats[index][0]), "CHEAT_TURN": str(cheats[index][1])}
            folder = helpers.copy_bot(
                HERE / "recorder", root / f"bots{number}" / f"rec{index}", name=f"rec{index}", env=env
            )
            bots.append(load_bot(folder))
        settings = TableSettings("llama", game.parse_options(rules), Clock(10.0, 5.0), out / "logs")
        run_match(MatchConfig(tuple(bots), games, seed, out, settings))
        for bot in bots:
            log = (out / "logs" / f"{bot.name}.stderr.log").read_text(encoding="utf-8")
            parts.append(f"## match {number} {json.dumps(rules, sort_keys=True)} bot {bot.name}\n{log}")
    return "".join(parts)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.write_text(record(Path(tmp)), encoding="utf-8")
    print(f"wrote {GOLDEN}", file=sys.stderr)
