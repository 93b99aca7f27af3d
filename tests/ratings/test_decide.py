"""Sequential decisions on a ranking: the spending function, decisions, error across looks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.ratings import GameResult, fit_elo
from harness.ratings.decide import Ranking, spent, summary_lines

LN10_OVER_400 = math.log(10.0) / 400.0


def test_spending_is_pocock_type_and_ends_at_alpha() -> None:
    assert spent(0.0, 0.01) == 0.0
    assert spent(1.0, 0.01) == pytest.approx(0.01)
    assert spent(2.0, 0.01) == pytest.approx(0.01)  # past the budget: nothing more to spend
    values = [spent(t / 10, 0.05) for t in range(11)]
    assert values == sorted(values)
    assert spent(0.25, 0.05) == pytest.approx(0.05 * math.log(1 + (math.e - 1) / 4))


def _league(rng: np.random.Generator, strengths: list[float], clusters: int) -> list[GameResult]:
    """Groups of 4 rotated games at random tables of 4 (Plackett-Luce: Gumbel noise)."""
    names = [f"b{i}" for i in range(len(strengths))]
    games = []
    for c in range(clusters):
        table = rng.choice(len(names), size=4, replace=False)
        for shift in range(4):
            seated = [int(table[(i + shift) % 4]) for i in range(4)]
            perf = [strengths[i] * LN10_OVER_400 + rng.gumbel() for i in seated]
            places = np.argsort(np.argsort(-np.array(perf))) + 1
            games.append(GameResult(tuple(names[i] for i in seated), tuple(int(p) for p in places), f"d{c}"))
    return games


def _run(rng: np.random.Generator, strengths: list[float], budget_groups: int, looks: int) -> Ranking:
    games = _league(rng, strengths, budget_groups)
    ranking = Ranking(tuple(f"b{i}" for i in range(len(strengths))), len(games), 0.95)
    for look in range(1, looks + 1):
        upto = len(games) * look // looks
        ranking.look(fit_elo(games[:upto]), upto)
        if ranking.done():
            break
    return ranking


def test_a_clear_ranking_is_decided_in_order() -> None:
    ranking = _run(np.random.default_rng(1), [0.0, 150.0, 300.0, 450.0], budget_groups=400, looks=10)
    assert ranking.done()
    assert ranking.order == ("b3", "b2", "b1", "b0")
    assert all(d.better > d.worse for d in ranking.decided.values())  # b3 > b2 ...: by name here
    data = ranking.to_dict()
    assert data["done"] is True and data["undecided"] == []
    assert "every adjacent pair of the ranking is decided" in summary_lines(data)[-1]


@pytest.mark.slow
def test_identical_bots_are_rarely_decided_across_many_looks() -> None:
    # 20 looks per league; with a naive LOS >= 95% stop, most leagues would declare a winner
    rng = np.random.default_rng(2)
    leagues = 60
    false = sum(bool(_run(rng, [0.0] * 4, budget_groups=60, looks=20).decided) for _ in range(leagues))
    assert false / leagues <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / leagues), false


def test_confidence_is_checked() -> None:
    with pytest.raises(ValueError, match="confidence"):
        Ranking(("a", "b"), 100, 1.0)


def test_a_gauntlet_asks_where_each_new_bot_stands_in_the_field() -> None:
    ranking = Ranking(("f1", "f2", "f3", "n1", "n2"), 1000, 0.95, new=frozenset({"n1", "n2"}))
    assert ranking.pair_alpha == pytest.approx(0.05 / 6)  # 2 new x 3 field pairs, not 10
    ranking.order = ("n1", "f1", "n2", "f2", "f3")
    # each new bot with the field bots just above and below it; other new bots skipped
    assert ranking.adjacent() == [("n1", "f1"), ("f1", "n2"), ("n2", "f2")]
    ranking.order = ("f1", "n1", "n2", "f2", "f3")
    assert ranking.adjacent() == [("f1", "n1"), ("n1", "f2"), ("f1", "n2"), ("n2", "f2")]
