"""Honest estimates at the edges: a prior for bots that never win or never lose, t quantiles
with few deal groups, no interval where the games hold no information, columns = objects."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.ratings import GameResult, fit_elo, render_table, sequential_elo
from harness.ratings.aggregate import aggregate
from harness.ratings.columns import Results
from harness.ratings.fit import history
from harness.ratings.tdist import interval_quantile, t_cdf, t_quantile
from ratings.test_fit import NAMES, TRUE, simulate


def _league(rng: np.random.Generator, groups: int, loser: str | None = None, winner: str | None = None) -> list[GameResult]:
    """Groups of 8 games (rotations and reversals of 4 of 5 bots); ``loser`` always last, ``winner`` first."""
    names = ["a", "b", "c", "d", "e"]
    games = []
    for g in range(groups):
        table = [str(x) for x in rng.choice(names, size=4, replace=False)]
        seatings = [tuple(table[i:] + table[:i]) for i in range(4)]
        seatings += [tuple(reversed(s)) for s in seatings]
        for seating in seatings:
            order = [str(x) for x in rng.permutation(list(seating))]
            if loser in order:
                order.remove(loser)
                order.append(loser)
            if winner in order:
                order.remove(winner)
                order.insert(0, winner)
            games.append(GameResult(seating, tuple(order.index(n) + 1 for n in seating), f"d{g}"))
    return games


def test_a_bot_that_never_wins_stays_finite_and_is_flagged() -> None:
    games = _league(np.random.default_rng(1), groups=6, loser="e", winner="a")  # 48 games
    fit = fit_elo(games)
    by_name = {bot.name: bot for bot in fit.bots}
    assert by_name["e"].edge == "never won" and by_name["a"].edge == "never lost"
    assert all(by_name[n].edge is None for n in "bcd")
    for bot in fit.bots:
        assert math.isfinite(bot.rating) and math.isfinite(bot.ci95) and bot.ci95 > 0
        assert 700.0 < bot.rating < 2300.0, bot  # not -800 / +3900
    # the edge bots' intervals are at least the model-based ones, never the near-zero sandwich
    assert by_name["e"].ci95 > 100.0 and by_name["a"].ci95 > 100.0
    text = render_table(fit)
    assert "e never placed above an opponent" in text and "a never placed below an opponent" in text
    assert "prior: 1 virtual draw per bot" in text


def test_history_of_an_edge_bot_does_not_swing() -> None:
    games = _league(np.random.default_rng(2), groups=6, loser="e")
    results = Results.from_games(games)
    marks = list(range(3, 49, 3))
    points = history(aggregate(results, marks=marks))
    assert [mark for mark, _ in points] == marks
    e = [ratings["e"] for _, ratings in points if "e" in ratings]
    assert max(e) - min(e) < 500.0  # with the old tiny ridge: ~1700


def test_t_quantiles_match_the_tables() -> None:
    # two-sided 95% quantiles from the published t table
    for dof, value in [(1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (12, 2.179), (30, 2.042), (120, 1.980)]:
        assert t_quantile(0.975, dof) == pytest.approx(value, abs=5e-4)
    assert t_quantile(0.975, 1e7) == pytest.approx(1.95996, abs=1e-4)
    assert t_quantile(0.025, 7) == pytest.approx(-t_quantile(0.975, 7))
    assert t_cdf(0.0, 3) == pytest.approx(0.5)
    assert t_cdf(2.228, 10) == pytest.approx(0.975, abs=1e-4)
    assert math.isnan(interval_quantile(1))
    assert interval_quantile(13) == pytest.approx(2.179, abs=5e-4)


def test_few_deal_groups_use_t_and_cover() -> None:
    # 13 groups: with 1.96 the coverage was 92.4%; t with 12 dof widens by 11%
    rng = np.random.default_rng(13)
    hits = []
    for _ in range(150):
        games = simulate(rng, clusters=13, rho=0.8, per_cluster=8)
        fit = fit_elo(games, anchor=(NAMES[0], float(TRUE[0])))
        assert fit.quantile == pytest.approx(2.179, abs=1e-3)
        for bot in fit.bots:
            if bot.name != NAMES[0] and bot.edge is None:
                hits.append(abs(bot.rating - TRUE[NAMES.index(bot.name)]) <= bot.ci95)
    assert 0.93 <= float(np.mean(hits)) <= 0.995, np.mean(hits)


def test_identical_deterministic_bots_hold_no_information_on_their_difference() -> None:
    # Heads-up mirror: the deal decides which seat wins, whoever sits there.
    rng = np.random.default_rng(4)
    games = []
    for g in range(20):
        seat_wins = int(rng.integers(0, 2))
        for seating in (("twin1", "twin2"), ("twin2", "twin1")):
            games.append(GameResult(seating, (1, 2) if seat_wins == 0 else (2, 1), f"d{g}"))
    fit = fit_elo(games)
    assert fit.uninformative == (("twin1", "twin2"),)
    assert math.isnan(fit.los["twin1"]["twin2"])
    assert all(math.isnan(bot.ci95) for bot in fit.bots)  # never a zero-width interval
    assert "the games hold no information on their difference" in render_table(fit)
    assert fit.to_dict()["uninformative"] == [["twin1", "twin2"]]


def test_columns_and_objects_give_the_same_fit_and_sequential_elo() -> None:
    games = simulate(np.random.default_rng(5), clusters=60, rho=0.5)
    objects, columns = fit_elo(games), fit_elo(Results.from_games(games))
    assert objects == columns
    a, b = sequential_elo(games), sequential_elo(Results.from_games(games))
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == pytest.approx(b[name], abs=1e-9)


def test_sequential_elo_forgets_its_start_so_a_window_gives_the_same_values() -> None:
    games = simulate(np.random.default_rng(6), clusters=1500, rho=0.5)  # 6000 games
    full = sequential_elo(Results.from_games(games))
    window = sequential_elo(Results.from_games(games), window=3000)
    for name in full:
        assert window[name] == pytest.approx(full[name], abs=1e-6)


def test_streaming_chunks_give_the_same_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.ratings.aggregate as agg_module

    games = simulate(np.random.default_rng(8), clusters=300, rho=0.5)
    whole = fit_elo(games)
    monkeypatch.setattr(agg_module, "CHUNK_GAMES", 37)  # many chunks, never splitting a group
    monkeypatch.setattr(agg_module, "DENSE_ROWS", 10)  # and the looked-up row keys
    chunked = fit_elo(games)
    for x, y in zip(whole.bots, chunked.bots, strict=True):
        assert x.name == y.name
        assert x.rating == pytest.approx(y.rating, abs=1e-6)
        assert x.se == pytest.approx(y.se, rel=1e-6)
