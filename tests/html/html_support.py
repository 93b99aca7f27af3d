"""Helpers for the HTML page tests (this folder has no __init__.py: a package named
``html`` would shadow the standard library's)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from harness.cli import main


def run_cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def ratings_json(league: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(run_cli("ratings", str(league), "--format", "json"))
    return data


def sample_data() -> dict[str, Any]:
    """A hand-made report dict shaped like ``ratings --format json``: four bots, one fault."""
    names = ["heuristic", "random", "rand2", "faulty"]
    elos = [1712.4, 1488.0, 1471.25, 1328.6]
    figures = [
        (61.3, 1655.0, 0.725, 17.5, 6.25, 0),
        (55.0, 1490.2, 0.15, 36.1, 14.0, 0),
        (None, 1470.0, 0.125, 37.4, 14.5, 0),
        (70.2, 1384.8, 0.0, 39.0, 15.0, 1),
    ]
    return {
        "games": 40,
        "config": {"rules": {"variant": "standard", "end_score": 40}, "table_size": 4, "seed": 7},
        "bots": [
            {"name": n, "elo": e, "ci95": ci, "se": None if ci is None else ci / 1.96, "sequential": seq,
             "games": 40, "win_share": ws, "mean_score": ms, "mean_penalty": mp, "faults": f}
            for n, e, (ci, seq, ws, ms, mp, f) in zip(names, elos, figures, strict=True)
        ],
        "seats": [
            {"seat": 0, "advantage": 12.5, "ci95": 20.0},
            {"seat": 1, "advantage": 3.0, "ci95": 19.0},
            {"seat": 2, "advantage": -5.5, "ci95": 21.0},
            {"seat": 3, "advantage": -10.0, "ci95": None},
        ],
        "los": {
            a: {b: 1 / (1 + math.exp((eb - ea) / 40)) for b, eb in zip(names, elos, strict=True) if b != a}
            for a, ea in zip(names, elos, strict=True)
        },
        "crosstable": {
            a: {b: {"wins": 3 + i, "draws": 1, "losses": 3 + j} for j, b in enumerate(names) if b != a}
            for i, a in enumerate(names)
        },
        "history": [
            {"games": g, "ratings": {n: 1500 + (e - 1500) * g / 40 for n, e in zip(names, elos, strict=True)}}
            for g in (5, 10, 20, 30, 40)
        ],
        "faults": [
            {"game": 2, "bot": "faulty", "seat": 1, "kind": "invalid",
             "detail": "reply </script><b>x</b> does not validate", "replay": "replays/game-00002.jsonl"},
        ],
    }


def resimulate(records: list[Any]) -> dict[int, dict[str, Any]]:
    """Replay the actions through the rules engine; return what the table holds after each step.

    Step k is the state after record k. An action that ends a round moves the engine on to
    the next deal at once, while the page still shows the finished round until the next
    ``round_start``: those steps only expect scores (from ``round_end``), not cards.
    """
    from harness.games import get_game
    from harness.games.llama.records import ActionRecord, Header, RoundEndRecord, RoundStartRecord

    header = records[0]
    assert isinstance(header, Header)
    game = get_game(header.game)
    state: Any = game.new_game(game.parse_options(header.options.model_dump()), len(header.players), header.seed)
    expected: dict[int, dict[str, Any]] = {}
    ahead = True  # the engine has dealt a round the page has not shown yet
    scores = [0] * len(header.players)
    for k, record in enumerate(records[1:], 1):
        if isinstance(record, RoundStartRecord):
            ahead = False
        elif isinstance(record, ActionRecord):
            action = state.parse_action(record.seat, record.model_dump(include={"action", "card"}))
            step = state.apply([action])
            ahead = ahead or bool(step.records)
        elif isinstance(record, RoundEndRecord):
            scores = list(state.scores)
            assert scores == record.scores
        if ahead:
            expected[k] = {"scores": scores}
        else:
            expected[k] = {
                "hands": [sorted(hand) for hand in state.hands],
                "discard": state.discard,
                "stock": len(state.stock),
                "scores": scores,
                "quit": list(state.quit),
            }
    return expected
