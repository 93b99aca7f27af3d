"""Simulation study of ``match --sprt``: error rates, power and games against a fixed-size test.

In process, through the league's deal groups (every seating of one deal) and the rules
engine, with the policies of bench/simulate.py. For each table (heads-up; A and B with
two field bots) a pool of deal groups is played once for identical policies (true
difference exactly 0: the pool is mirrored, so its mean score is exactly 1/2) and for
A stronger than B (the true difference is the pool's mean, measured); then each SPRT
run draws groups from a pool at random, in sequence, until the test decides. ELO1 is
set to the measured difference of the stronger pool, so "power at ELO1" is exact.

Run as ``python bench/sprt_study.py`` (about three minutes on two busy cores).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from simulate import pair_score, play_group

from harness.league.schedule import group_size
from harness.ratings.sprt import Bounds, Sprt, elo_to_score, score_to_elo

Z95 = statistics.NormalDist().inv_cdf(0.95)


def pool(noise: dict[str, float], order: tuple[str, ...], groups: int, seed: int) -> list[float]:
    """A's group scores against B over ``groups`` deal groups."""
    return [pair_score(play_group(noise, order, g, seed), order[0], order[1]) for g in range(groups)]


def run_tests(scores: list[float], bounds: Bounds, runs: int, cap: int, seed: int) -> dict[str, float]:
    """``runs`` SPRTs on groups drawn from ``scores``: verdict shares and groups used."""
    rng = random.Random(seed)
    verdicts = {"H0": 0, "H1": 0, "inconclusive": 0}
    used = []
    for _ in range(runs):
        test = Sprt(bounds)
        while test.verdict() is None and len(test.scores) < cap:
            test.add(rng.choice(scores), 1)
        verdicts[test.verdict() or "inconclusive"] += 1
        used.append(len(test.scores))
    return {
        **{key: value / runs for key, value in verdicts.items()},
        "mean_groups": float(np.mean(used)),
        "p95_groups": float(np.percentile(used, 95)),
    }


def fixed_size(sd: float, bounds: Bounds) -> int:
    """Groups a one-sided fixed-size z test at level alpha needs for power 1 - beta at ELO1."""
    z_alpha = statistics.NormalDist().inv_cdf(1 - bounds.alpha)
    z_beta = statistics.NormalDist().inv_cdf(1 - bounds.beta)
    gap = elo_to_score(bounds.elo1) - elo_to_score(bounds.elo0)
    return math.ceil(((z_alpha + z_beta) * sd / gap) ** 2)


def study(name: str, order: tuple[str, ...], field: dict[str, float], weak: float, groups: int, runs: int) -> None:
    started = time.perf_counter()
    same = pool({"A": weak, "B": weak, **field}, order, groups, seed=11)
    same = same + [1.0 - x for x in same]  # identical policies: the distribution is symmetric
    strong = pool({"A": 0.0, "B": weak, **field}, order, groups, seed=12)
    mean = float(np.mean(strong))
    se = float(np.std(strong, ddof=1)) / math.sqrt(len(strong))
    elo1 = round(score_to_elo(mean))
    half = (score_to_elo(mean + 1.96 * se) - score_to_elo(mean - 1.96 * se)) / 2
    bounds = Bounds(0, elo1)
    sd = float(np.std(strong, ddof=1))
    n_fixed = fixed_size(sd, bounds)
    size = group_size(len(order))
    played = time.perf_counter() - started
    h0 = run_tests(same, bounds, runs, 10 * n_fixed, seed=21)
    h1 = run_tests(strong, bounds, runs, 10 * n_fixed, seed=22)
    noise = 1.96 * math.sqrt(0.05 * 0.95 / runs)
    print(f"{name}: deal groups of {size} games; pools of {groups} groups ({played:.0f} s to play);"
          f" A - B = {elo1} ± {half:.0f} Elo (measured), SPRT [0, {elo1}], alpha = beta = 0.05, {runs} runs each")
    print(f"  identical bots: false H1 {100 * h0['H1']:.1f}% (alpha 5% ± {100 * noise:.1f}), H0 {100 * h0['H0']:.1f}%,"
          f" inconclusive {100 * h0['inconclusive']:.1f}%; groups mean {h0['mean_groups']:.0f}, 95th pct {h0['p95_groups']:.0f}")
    print(f"  A stronger by ELO1: H1 (power) {100 * h1['H1']:.1f}% (target 95%), H0 {100 * h1['H0']:.1f}%;"
          f" groups mean {h1['mean_groups']:.0f}, 95th pct {h1['p95_groups']:.0f}")
    print(f"  fixed-size test of the same power: {n_fixed} groups ({n_fixed * size} games); SPRT mean"
          f" {h0['mean_groups'] / n_fixed:.2f}x of it under H0, {h1['mean_groups'] / n_fixed:.2f}x under H1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--groups", type=int, default=10_000, help="pool size (deal groups) per hypothesis")
    args = parser.parse_args()
    study("heads-up", ("A", "B"), {}, weak=0.03, groups=args.groups, runs=args.runs)
    study("A, B and two field bots", ("A", "B", "F1", "F2"), {"F1": 0.05, "F2": 0.15}, weak=0.03,
          groups=args.groups // 4, runs=args.runs)


if __name__ == "__main__":
    main()
