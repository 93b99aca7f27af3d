"""The SPRT with betting e-processes: lopsided pairs stop early, the error rates hold,
the Elo after a stop is adjusted for it, and the controllers say when they are decided."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from harness.league.sprt_run import SprtController
from harness.ratings.eprocess import Bettor
from harness.ratings.sprt import E_SHARE, Bounds, Sprt, elo_to_score, score_to_elo
from harness.ratings.sprt_elo import outcome_cdf, stop_adjusted

PENTA = (0.0, 0.25, 0.5, 0.75, 1.0)


def test_a_pair_that_wins_or_loses_every_group_stops_in_a_handful() -> None:
    for score, verdict in ((1.0, "H1"), (0.0, "H0")):
        for bounds in (Bounds(0, 10), Bounds(0, 5), Bounds(-5, 5)):
            test = Sprt(bounds)
            while test.verdict() is None:
                test.add(score, 2)
            # the SPRT alone needs >= upper / log(s1/s0) = 104 groups at [0, 10]
            assert test.verdict() == verdict and test.stopped_by == "e-process"
            assert len(test.scores) <= 20, (bounds, len(test.scores))


def test_the_bettor_against_a_true_hypothesis_rarely_wins() -> None:
    # Ville: P(wealth ever >= 1/a) <= a when the mean is the target. A stake that peeked
    # at the group it bets on would win almost always here.
    rng = random.Random(5)
    level, runs = 0.05, 1500
    weights = (0.1, 0.2, 0.4, 0.2, 0.1)  # mean exactly 1/2
    wins = 0
    for _ in range(runs):
        bettor = Bettor(0.5, up=True)
        for _ in range(150):
            bettor.add(rng.choices(PENTA, weights)[0])
            if bettor.rejects(level):
                wins += 1
                break
    assert wins / runs <= level + 2.5 * math.sqrt(level * (1 - level) / runs)
    strong = Bettor(0.5, up=True)
    for _ in range(150):
        strong.add(rng.choices(PENTA, (0.02, 0.1, 0.3, 0.3, 0.28))[0])
    assert strong.rejects(level)  # and it does find a real edge


def test_the_combined_test_keeps_alpha_and_beta_at_wide_bounds() -> None:
    # [0, 120] on game pairs: a few dozen groups a run
    bounds = Bounds(0, 120)
    rng = np.random.default_rng(8)

    def rate(true_elo: float, runs: int) -> float:
        s = elo_to_score(true_elo)
        # a pentanomial with mean s: a pair of independent games of score s, no draws
        weights = np.array([(1 - s) ** 2, 0.0, 2 * s * (1 - s), 0.0, s * s])
        h1 = 0
        for _ in range(runs):
            test = Sprt(bounds)
            while test.verdict() is None:
                test.add(float(rng.choice(PENTA, p=weights)), 2)
            h1 += test.verdict() == "H1"
        return h1 / runs

    runs = 300
    noise = 2.5 * math.sqrt(0.05 * 0.95 / runs)
    assert rate(0.0, runs) <= 0.05 + noise  # false H1
    assert rate(120.0, runs) >= 0.95 - noise  # power


def test_the_bounds_are_wald_s_at_the_sprt_share_moved_in_by_the_overshoot() -> None:
    test = Sprt(Bounds(0, 10))
    share = 1 - E_SHARE
    wald = math.log((1 - share * 0.05) / (share * 0.05))
    assert test.upper == pytest.approx(wald)  # no groups: no step, no shift
    for score in [0.25, 0.75, 0.5, 1.0, 0.0] * 8:
        test.add(score, 2)
    assert 0.7 * wald < test.upper < wald and test.lower == pytest.approx(-test.upper, abs=1e-9)


def test_the_outcome_probabilities_match_a_brownian_simulation() -> None:
    rng = np.random.default_rng(1)
    a, b, mu, var, horizon, dt = -2.9, 2.9, 0.02, 0.05, 150.0, 0.05
    n = 8000
    x = np.zeros(n)
    state = np.zeros(n, dtype=int)
    for _ in range(int(horizon / dt)):
        alive = state == 0
        x[alive] += mu * dt + math.sqrt(var * dt) * rng.standard_normal(int(alive.sum()))
        state[alive & (x <= a)] = -1
        state[alive & (x >= b)] = 1
    # a discretely watched path crosses a little later: the simulation errs low on the hits
    assert outcome_cdf("H0", horizon, 0.0, mu, var, a, b) == pytest.approx(np.mean(state == -1), abs=0.015)
    assert 1 - outcome_cdf("H1", horizon, 0.0, mu, var, a, b) == pytest.approx(np.mean(state == 1), abs=0.02)
    below = outcome_cdf(None, horizon, 0.0, mu, var, a, b) - outcome_cdf("H0", horizon, 0.0, mu, var, a, b)
    assert below == pytest.approx(np.mean((state == 0) & (x <= 0.0)), abs=0.015)


def test_the_stop_adjusted_elo_corrects_the_stop_s_bias() -> None:
    rng = random.Random(2)
    weights = (0.05, 0.2, 0.45, 0.22, 0.08)
    true = score_to_elo(float(np.dot(PENTA, weights)))
    plain, adjusted, covered = [], [], 0
    runs = 60
    for _ in range(runs):
        test = Sprt(Bounds(0, 20))
        while test.verdict() is None:
            test.add(rng.choices(PENTA, weights)[0], 2)
        elo, low, high = test.adjusted_elo()
        plain.append(test.elo()[0])
        adjusted.append(elo)
        covered += low <= true <= high
        if test.verdict() == "H1":  # a stop at H1 favours high means: the adjusted estimate is lower
            assert elo < test.elo()[0]
    assert abs(np.median(adjusted) - true) < abs(np.median(plain) - true)
    assert covered / runs >= 0.85
    data = test.to_dict()
    assert data["elo_adjusted_method"].startswith("median-unbiased")  # type: ignore[union-attr]
    # no stop (bounds never reached): the adjusted estimate is the fixed-sample one
    free = stop_adjusted([rng.choices(PENTA, weights)[0] for _ in range(200)], 0, 10, -50.0, 50.0, None)
    assert free[1] < free[0] < free[2]


def test_the_controller_says_when_it_is_decided() -> None:
    controller = SprtController(("a", "b"), Sprt(Bounds(0, 10)), 10_000)
    assert not controller.decided()

    class Row:
        def __init__(self, game_id: int, players: tuple[str, ...], places: tuple[int, ...]) -> None:
            self.game_id, self.players, self.places = game_id, players, places

    game = 0
    while not controller.decided():
        assert controller.next_tables()
        controller.group_done([Row(game, ("a", "b"), (1, 2)), Row(game + 1, ("b", "a"), (2, 1))])  # a wins both
        game += 2
    assert controller.verdict == "H1" and controller.next_tables() == [] and game <= 40
