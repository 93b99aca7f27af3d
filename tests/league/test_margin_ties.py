"""``league --until-decided --margin``: a pair too close to call is decided equal within ±margin."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import without_warnings

from harness.ratings import GameResult, fit_elo
from harness.ratings.decide import Ranking, summary_lines
from league.conftest import cli, db_rows


def _league(strength: dict[str, float], groups: int, seed: int) -> list[GameResult]:
    """Heads-up game pairs between every two bots; a bot wins a game with the logistic chance."""
    rng = random.Random(seed)
    names = sorted(strength)
    games: list[GameResult] = []
    for g in range(groups):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                p = 1.0 / (1.0 + 10 ** ((strength[b] - strength[a]) / 400.0))
                for players in ((a, b), (b, a)):
                    first = players[0] == a
                    won = rng.random() < (p if first else 1.0 - p)
                    games.append(GameResult(players, (1, 2) if won else (2, 1), f"d{g}"))
    return games


def _look(ranking: Ranking, games: list[GameResult]) -> None:
    names = sorted({name for game in games for name in game.players})
    shared = {frozenset((a, b)): len({game.cluster for game in games}) for a in names for b in names if a < b}
    ranking.look(fit_elo(games), len(games), shared)


def test_identical_bots_are_equal_within_the_margin_and_the_league_is_done() -> None:
    games = _league({"a": 0.0, "b": 0.0, "c": 0.0}, 1500, seed=1)
    ranking = Ranking(("a", "b", "c"), len(games), 0.95, margin=40.0)
    _look(ranking, games)
    assert ranking.done() and not ranking.decided
    assert len(ranking.tied()) == 2 and not ranking.undecided()
    data = json.loads(json.dumps(ranking.to_dict()))
    assert data["margin"] == 40.0 and data["done"] is True and len(data["tied"]) == 2
    assert {frozenset((e["a"], e["b"])) for e in data["equal"]} >= {frozenset(pair) for pair in data["tied"]}
    lines = summary_lines(data)
    assert any(line.startswith("equal within ±40 Elo (too close to call): ") for line in lines), lines
    assert lines[-1] == "every adjacent pair of the ranking is ordered or equal within ±40 Elo"
    # without a margin the same games decide nothing: the league would play on
    plain = Ranking(("a", "b", "c"), len(games), 0.95)
    _look(plain, games)
    assert not plain.done() and not plain.equal


def test_a_gap_beyond_the_margin_is_never_called_equal() -> None:
    games = _league({"a": 0.0, "b": 60.0}, 1500, seed=2)
    ranking = Ranking(("a", "b"), len(games), 0.95, margin=30.0)
    _look(ranking, games)
    assert not ranking.equal
    assert ranking.done() and ranking.decided[frozenset(("a", "b"))].better == "b"


def test_false_equal_rate_at_the_margin_is_below_the_error() -> None:
    # a true gap exactly at the margin: "equal" is wrong; it must happen at most 1 - confidence
    runs, wrong = 60, 0
    for seed in range(runs):
        games = _league({"a": 0.0, "b": 25.0}, 400, seed=100 + seed)
        ranking = Ranking(("a", "b"), len(games), 0.95, margin=25.0)
        _look(ranking, games)
        wrong += bool(ranking.equal)
    assert wrong / runs <= 0.05 + 0.06


def test_a_negative_margin_is_refused() -> None:
    with pytest.raises(ValueError, match="--margin"):
        Ranking(("a", "b"), 100, margin=-1.0)


def test_margin_needs_until_decided(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    done = cli("league", folder, "--margin", "10", "--out", tmp_path / "o", check=False)
    assert done.returncode == 2 and len(without_warnings(done.stderr)) == 1, done.stderr
    assert "--margin needs --until-decided" in done.stderr
    bad = cli("league", folder, "--until-decided", "--margin", "nan", "--out", tmp_path / "p", check=False)
    assert bad.returncode == 2 and "--margin" in bad.stderr
    assert "never calls a tie [default: 30]" in " ".join(cli("league", "--help").stdout.split())


@pytest.mark.slow
def test_identical_real_bots_end_equal_within_a_wide_margin(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])  # two copies of the random bot
    out = tmp_path / "out"
    args = ("league", folder, "--until-decided", "--games", "2000", "--margin", "300", "--sandbox", "none")
    done = cli(*args, "--out", out, timeout=600)
    assert "ordered or equal within ±300 Elo" in done.stderr, done.stderr
    assert "equal within ±300 Elo (too close to call): " in done.stdout, done.stdout
    played = db_rows(out, "SELECT count(*) FROM results")[0][0]
    assert 0 < played < 2000
    data = json.loads(cli("ratings", out, "--format", "json").stdout)["decisions"]
    assert data["done"] is True and data["margin"] == 300.0 and data["tied"]
    # the margin is part of the run: another margin in the folder is refused
    other = cli(*args[:-2], "--margin", "200", "--sandbox", "none", "--out", out, check=False)
    assert other.returncode == 2 and "margin" in other.stderr, other.stderr
