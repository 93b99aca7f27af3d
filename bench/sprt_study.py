"""Simulation study of ``match --sprt``: error rates, power, groups used, and the Elo after the stop.

In process, through the league's deal groups (every seating of one deal) and the rules
engine, with the policies of bench/simulate.py. For each table (heads-up; A and B with
two field bots) three pools of deal groups are played once: identical policies (the
pool mirrored, so its true difference is exactly 0), A stronger than B (ELO1 is set to
this pool's measured difference, so "power at ELO1" is exact) and A far stronger (B
plays at random). A test draws groups from a pool at random, one at a time, and looks
after every group, as the CLI does (a look per finished deal group). Other true
differences are mixtures: a group from the stronger pool with probability w, else from
the identical one, has expected score exactly 1/2 + w (s - 1/2): the midpoint of the
bounds, and ELO1 of wider bounds. "Far below" mirrors the far pool.

Each row runs the test of harness.ratings.sprt (SPRT with overshoot-corrected bounds
plus betting e-processes) and the classic GSPRT it replaced (Wald's bounds, no
e-process) on the same draws, the fixed-size test of the same alpha and power for
scale, and the coverage of the 95% intervals after the stop: the stop-adjusted one
(`Sprt.adjusted_elo`) and the plain mean's.

Run ``python bench/sprt_study.py`` (quick: small pools, 400 tests a row; 121 s of CPU,
measured) or ``--full`` (pools five times larger, 2000 tests a row: about five times that);
``--table heads-up`` or ``--table field`` for one table.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from simulate import pair_score, play_group
from sprt_paths import Array, check, run

from harness.league.schedule import group_size
from harness.ratings.sprt import Bounds, Sprt, elo_to_score, score_to_elo

Draw = Callable[[int], Array]


def pool(noise: dict[str, float], order: tuple[str, ...], groups: int, seed: int) -> Array:
    """A's group scores against B over ``groups`` deal groups."""
    return np.array([pair_score(play_group(noise, order, g, seed), order[0], order[1]) for g in range(groups)])


def drawer(rng: np.random.Generator, strong: Array, same: Array, weight: float) -> Draw:
    """Groups from ``strong`` with probability ``weight``, else from ``same``."""

    def draw(k: int) -> Array:
        pick = rng.random(k) < weight
        out: Array = np.where(pick, rng.choice(strong, k), rng.choice(same, k))
        return out

    return draw


@dataclass
class Row:
    label: str
    true: float  # Elo
    h1: float
    h0: float
    open: float
    mean: float
    p95: float
    classic_h1: float
    classic_mean: float
    by_e: float  # share of stops by the e-process
    adjusted_cover: float
    plain_cover: float
    adjusted_error: float  # median estimate - true
    plain_error: float


def measure(label: str, true: float, make: Callable[[int], Draw], values: Array, bounds: Bounds, runs: int,
            cover_runs: int, cap: int) -> Row:
    verdicts: list[str | None] = []
    used, classic_used, classic_h1, by_e = [], [], 0, 0
    covered = plain_covered = 0
    errors, plain_errors = [], []
    for i in range(runs):
        (verdict, groups, by), (c_verdict, c_groups, _), scores = run(make(i), values, bounds, cap)  # the same draws
        verdicts.append(verdict)
        used.append(groups)
        classic_used.append(c_groups)
        classic_h1 += c_verdict == "H1"
        by_e += by == "e-process"
        if i < cover_runs:
            test = Sprt(bounds, scores=[float(x) for x in scores])
            elo, low, high = test.adjusted_elo()
            plain, plain_low, plain_high = test.elo()
            covered += low <= true <= high
            plain_covered += plain_low <= true <= plain_high
            errors.append(elo - true)
            plain_errors.append(plain - true)
    return Row(
        label, true,
        verdicts.count("H1") / runs, verdicts.count("H0") / runs, verdicts.count(None) / runs,
        float(np.mean(used)), float(np.percentile(used, 95)),
        classic_h1 / runs, float(np.mean(classic_used)), by_e / runs,
        covered / max(cover_runs, 1), plain_covered / max(cover_runs, 1),
        float(np.median(errors)) if errors else math.nan, float(np.median(plain_errors)) if plain_errors else math.nan,
    )


def fixed_size(sd: float, bounds: Bounds) -> int:
    """Groups a one-sided fixed-size z test at level alpha needs for power 1 - beta at ELO1."""
    z_alpha = statistics.NormalDist().inv_cdf(1 - bounds.alpha)
    z_beta = statistics.NormalDist().inv_cdf(1 - bounds.beta)
    gap = elo_to_score(bounds.elo1) - elo_to_score(bounds.elo0)
    return math.ceil(((z_alpha + z_beta) * sd / gap) ** 2)


def weight_for(elo: float, pool_mean: float) -> float:
    """The mixture weight of a pool with this mean score that has expected score L(elo)."""
    return (elo_to_score(elo) - 0.5) / (pool_mean - 0.5)


def show(rows: list[Row], fixed: int, runs: int, cover_runs: int) -> None:
    noise = 1.96 * math.sqrt(0.05 * 0.95 / runs)
    print(f"  {runs} tests a row (± {100 * noise:.1f} points at 5%); intervals checked on {cover_runs} of them;"
          f" fixed-size test of the same alpha, power: {fixed} groups")
    print("  true A-B     | H1     H0     none | groups mean (x fixed)  p95 | classic: H1    mean  | new/classic"
          " | e-stops | 95% cover: adjusted / plain | median error: adjusted / plain")
    for r in rows:
        print(f"  {r.label:<12} | {100 * r.h1:5.1f}% {100 * r.h0:5.1f}% {100 * r.open:4.1f}% |"
              f" {r.mean:7.1f} ({r.mean / fixed:4.2f}x) {r.p95:6.0f} | {100 * r.classic_h1:5.1f}% {r.classic_mean:7.1f} |"
              f" {r.mean / r.classic_mean:5.2f}x | {100 * r.by_e:5.1f}% |"
              f" {100 * r.adjusted_cover:5.1f}% / {100 * r.plain_cover:5.1f}% | {r.adjusted_error:+6.1f} / {r.plain_error:+6.1f}")


def study(name: str, order: tuple[str, ...], field: dict[str, float], groups: int, runs: int, cover_runs: int,
          wide: float | None) -> None:
    started = time.perf_counter()
    same = pool({"A": 0.03, "B": 0.03, **field}, order, groups, seed=11)
    same = np.concatenate([same, 1.0 - same])  # identical policies: the distribution is symmetric
    strong = pool({"A": 0.0, "B": 0.03, **field}, order, groups, seed=12)
    far = pool({"A": 0.0, "B": 1.0, **field}, order, groups, seed=13)
    values = np.unique(np.concatenate([[0.0, 1.0], same, strong, far, 1.0 - far]))
    elo1 = score_to_elo(float(np.mean(strong)))
    far_elo = score_to_elo(float(np.mean(far)))
    bounds = Bounds(0, elo1)
    fixed = fixed_size(float(np.std(strong, ddof=1)), bounds)
    cap = max(20 * fixed, 2000)
    size = group_size(len(order))
    print(f"{name}: deal groups of {size} games; pools of {groups} groups ({time.perf_counter() - started:.0f} s to play);"
          f" SPRT [0, {elo1:.1f}] (ELO1 = the stronger pool's measured difference), alpha = beta = 0.05")
    check([np.random.default_rng(s).choice(strong, 300) for s in range(5)], values, bounds)  # same stops as Sprt

    def mix(pool_: Array, weight: float, seed: int) -> Callable[[int], Draw]:
        return lambda i: drawer(np.random.default_rng([seed, i]), pool_, same, weight)

    mid = (bounds.elo0 + bounds.elo1) / 2
    rows = [
        measure("0 (elo0)", 0.0, mix(strong, 0.0, 1), values, bounds, runs, cover_runs, cap),
        measure(f"{mid:.1f} (mid)", mid, mix(strong, weight_for(mid, float(np.mean(strong))), 2), values, bounds, runs,
                cover_runs, cap),
        measure(f"{elo1:.1f} (elo1)", elo1, mix(strong, 1.0, 3), values, bounds, runs, cover_runs, cap),
        measure(f"{far_elo:.0f} (far)", far_elo, mix(far, 1.0, 4), values, bounds, runs, cover_runs, cap),
        measure(f"{-far_elo:.0f} (far)", -far_elo, mix(1.0 - far, 1.0, 5), values, bounds, runs, cover_runs, cap),
    ]
    show(rows, fixed, runs, cover_runs)
    tight = Bounds(0, 10)
    lop = measure(f"{far_elo:.0f} (far)", far_elo, mix(far, 1.0, 6), values, tight, runs, 0, 100_000)
    print(f"  a lopsided pair at [0, 10] (as match strong random --sprt 0,10): H1 {100 * lop.h1:.1f}%, groups mean"
          f" {lop.mean:.1f}, 95th pct {lop.p95:.0f} (the classic GSPRT: {lop.classic_mean:.1f})")
    if wide is not None:
        wide_bounds = Bounds(0, wide)
        weight = weight_for(wide, float(np.mean(far)))
        sample = mix(far, weight, 9)(0)(100_000)  # the mixture at ELO1: its deviation sizes the fixed test
        fixed_wide = fixed_size(float(np.std(sample, ddof=1)), wide_bounds)
        cap_wide = max(20 * fixed_wide, 2000)
        print(f"  wide bounds [0, {wide:g}] (ELO1 a mixture of the far and identical pools):")
        show([
            measure("0 (elo0)", 0.0, mix(far, 0.0, 7), values, wide_bounds, runs, cover_runs, cap_wide),
            measure(f"{wide:g} (elo1)", wide, mix(far, weight, 8), values, wide_bounds, runs, cover_runs, cap_wide),
        ], fixed_wide, runs, cover_runs)
    print(f"  ({time.perf_counter() - started:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", action="store_true", help="large pools and 2000 tests a row (about half an hour)")
    parser.add_argument("--runs", type=int, default=None, help="tests a row [400; --full 2000]")
    parser.add_argument("--cover-runs", type=int, default=None, help="of them, interval checks [150; --full 1000]")
    parser.add_argument("--groups", type=int, default=None, help="heads-up pool size [2000; --full 10000]; a field's is 1/4")
    parser.add_argument("--table", choices=("both", "heads-up", "field"), default="both", help="which tables to study")
    args = parser.parse_args()
    runs = args.runs or (2000 if args.full else 400)
    cover = args.cover_runs if args.cover_runs is not None else (1000 if args.full else 150)
    groups = args.groups or (10_000 if args.full else 2000)
    random.seed(0)
    if args.table != "field":
        study("heads-up", ("A", "B"), {}, groups, runs, min(cover, runs), wide=None)
    if args.table != "heads-up":
            study("A, B and two field bots", ("A", "B", "F1", "F2"), {"F1": 0.05, "F2": 0.15}, groups // 4, runs,
              min(cover, runs), wide=150.0)


if __name__ == "__main__":
    main()
