"""The ratings table's ``LOS next`` column: each bot's likelihood of superiority over the next one."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path

from league.conftest import bots, cli  # noqa: F401  (bots is a fixture)

from harness.ratings import GameResult, fit_elo, render_table
from harness.ratings.model import BotRating, EloFit
from harness.ratings.render import los_next, los_text

_PATTERN = [
    (("ace", "deuce", "trey"), (1, 2, 3)),
    (("deuce", "trey", "ace"), (2, 3, 1)),
    (("trey", "ace", "deuce"), (3, 2, 1)),
    (("ace", "trey"), (1, 2)),
    (("deuce", "trey"), (1, 1)),
    (("trey", "deuce"), (1, 2)),
]
GAMES = [GameResult(players, places, f"deal{i // 3}") for i, (players, places) in enumerate(_PATTERN * 4)]


def _column(text: str) -> dict[str, str]:
    """bot -> its LOS next cell, found by the header's column position."""
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("rank"))
    start = header.index("LOS next")
    end = start + len("LOS next")
    rows = lines[lines.index(header) + 1 :]
    out = {}
    for line in rows:
        if not line[:4].strip().isdigit():
            break
        out[line.split()[1]] = line[:end].rsplit(" ", 1)[-1]  # right-aligned under its header
    return out


def test_the_column_is_the_fits_los_over_the_bot_below() -> None:
    fit = fit_elo(GAMES)
    names = [bot.name for bot in fit.bots]
    cells = _column(render_table(fit))
    assert list(cells) == names
    for name, below in itertools.pairwise(names):
        assert cells[name] == los_text(fit.los[name][below])
    assert cells[names[-1]] == "-"
    assert "note: LOS next: likelihood of superiority over the bot ranked just below" in render_table(fit)


def test_extreme_and_missing_values_read_as_such() -> None:
    assert [los_text(p) for p in (0.9995, 0.0004, 0.5, 0.97349, math.nan, None)] == [
        ">99.9%", "<0.1%", "50.0%", "97.3%", "n/a", "n/a"
    ]
    rated = tuple(BotRating(n, 1500.0 - i, 1.0, 2.0, 4) for i, n in enumerate(("x", "y", "z")))
    fit = EloFit(rated, (), {"x": {"y": math.nan, "z": 0.9}, "y": {"x": math.nan, "z": 0.8}, "z": {}}, 4, 2)
    assert los_next(fit) == {"x": los_next(fit)["x"], "y": 0.8, "z": None}
    assert math.isnan(los_next(fit)["x"] or 0.0)  # no information on x against y: n/a, not a number
    assert _column(render_table(fit)) == {"x": "n/a", "y": "80.0%", "z": "-"}


def test_ratings_prints_the_json_los_to_the_next_bot(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:  # noqa: F811
    folder = bots(["a", "b", "c"])
    out = tmp_path / "out"
    cli("league", folder, "--games", "12", "--seed", "3", "--sandbox", "none", "--jobs", "2", "--out", out)
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    cells = _column(cli("ratings", out).stdout)
    names = [bot["name"] for bot in data["bots"]]
    assert list(cells) == names
    for name, below in itertools.pairwise(names):
        assert cells[name] == los_text(data["los"][name][below])
    assert cells[names[-1]] == "-"
