"""The SPRT on deal groups: known values, closed forms, bounds, verdicts."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from harness.ratings.sprt import Bounds, Sprt, constrained_mle, elo_to_score, llr, score_to_elo

PENTA = (0.0, 0.25, 0.5, 0.75, 1.0)


def _scores(counts: list[int]) -> list[float]:
    return [value for value, count in zip(PENTA, counts, strict=True) for _ in range(count)]


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "expected"),
    [
        # fishtest's LLR_logistic on pentanomial counts (its regulariser differs by 1e-3 counts)
        ([10, 40, 80, 50, 20], 0, 10, 1.34316),
        ([10, 40, 80, 50, 20], -5, 5, 1.65392),
        ([0, 3, 10, 6, 1], 0, 10, 0.43874),
        ([100, 800, 2000, 900, 120], 0, 10, 2.37885),
        ([100, 800, 2000, 900, 120], -5, 5, 12.22034),
        ([0, 0, 0, 0, 30], 0, 10, 0.85110),
    ],
)
def test_llr_matches_fishtest_on_pentanomial_pairs(counts: list[int], elo0: float, elo1: float, expected: float) -> None:
    assert llr(_scores(counts), elo0, elo1) == pytest.approx(expected, rel=2e-3)


def test_two_outcomes_give_the_bernoulli_likelihood_ratio() -> None:
    # groups that are all-or-nothing: the GSPRT is the classic Wald SPRT
    wins, losses = 70, 50
    s0, s1 = elo_to_score(0), elo_to_score(30)
    exact = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr([1.0] * wins + [0.0] * losses, 0, 30) == pytest.approx(exact, rel=1e-4)


def test_constrained_mle_has_the_mean_and_stays_a_distribution() -> None:
    rng = np.random.default_rng(3)
    values = np.linspace(0.0, 1.0, 17)
    for _ in range(50):
        probs = rng.dirichlet(np.ones(17))
        mean = float(rng.uniform(0.05, 0.95))
        fitted = constrained_mle(values, probs, mean)
        assert float(fitted @ values) == pytest.approx(mean, abs=1e-9)
        assert fitted.min() > 0 and fitted.sum() == pytest.approx(1.0)


def test_bounds_and_elo_scale() -> None:
    bounds = Bounds(0, 10)
    assert bounds.lower == pytest.approx(math.log(0.05 / 0.95))
    assert bounds.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    assert elo_to_score(0) == 0.5
    assert score_to_elo(elo_to_score(123.0)) == pytest.approx(123.0)
    assert score_to_elo(1.0) == math.inf
    for bad in ((10, 0, 0.05, 0.05), (0, 10, 0.0, 0.05), (0, 10, 0.05, 0.7), (0, math.nan, 0.05, 0.05)):
        with pytest.raises(ValueError):
            Bounds(*bad)


def test_verdicts_and_summary() -> None:
    strong = Sprt(Bounds(0, 10))
    while strong.verdict() is None:
        strong.add(1.0, 2)  # a pair won twice: the LLR rises by at most log(s1/s0) per group
    assert strong.verdict() == "H1"
    # the SPRT alone could not stop sooner than 104 groups (each moves the LLR by < 0.0288);
    # the betting e-process against H0 stops it in a handful
    assert Bounds(0, 10).upper / math.log(elo_to_score(10) / 0.5) > 100
    assert strong.stopped_by == "e-process" and len(strong.scores) <= 20
    even = Sprt(Bounds(0, 10))
    while even.verdict() is None:
        even.add(0.5, 2)
    assert even.verdict() == "H0"
    data = strong.to_dict()
    assert data["result"] == "H1" and data["games"] == 2 * len(strong.scores)
    assert data["stopped_by"] == "e-process" and data["llr"] < data["upper"]
    wealth, limit = data["log_wealth"], data["log_wealth_bound"]
    assert wealth[0] >= limit[0] == pytest.approx(math.log(1 / (0.1 * 0.05)), abs=1e-3)  # type: ignore[index]
    assert even.stopped_by == "sprt" and even.to_dict()["llr"] <= even.to_dict()["lower"]  # type: ignore[operator]
    assert Sprt(Bounds(0, 10)).to_dict()["result"] == "inconclusive"


def test_false_h1_rate_of_fair_coins_is_below_alpha() -> None:
    # Wald's bound: P(H1 | H0) <= alpha / (1 - beta) even with early stops
    rng = random.Random(9)
    false = 0
    runs = 200
    for _ in range(runs):
        test = Sprt(Bounds(0, 60))
        while test.verdict() is None and len(test.scores) < 2000:
            test.add(rng.choice(PENTA[1:4]), 2)
        false += test.verdict() == "H1"
    assert false / runs <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / runs)


def test_elo_interval_brackets_the_estimate() -> None:
    test = Sprt(Bounds(0, 10))
    for score in [0.75, 0.5, 0.75, 1.0, 0.25, 0.75] * 5:
        test.add(score, 2)
    elo, low, high = test.elo()
    assert low < elo < high
    assert elo == pytest.approx(score_to_elo(float(np.mean([*test.scores, 0.5, 0.5]))))
    swept = Sprt(Bounds(0, 10))
    for _ in range(20):
        swept.add(1.0, 2)  # every group won: a finite estimate and lower bound (no upper bound)
    elo, low, high = swept.elo()
    assert math.isfinite(elo) and math.isfinite(low) and low < elo < high
