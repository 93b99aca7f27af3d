"""Simulation study of ``league --until-decided``: error over repeated looks, games used,
adaptive against balanced scheduling.

In process, through the league's deal groups and the rules engine with the policies of
bench/simulate.py (six policies, neighbours 15-50 Elo apart at tables of four). For
every table of four a pool of deal groups is played once; a league run then draws, for
each group its scheduler puts at a table, a group of that table's pool at random, and
applies the same controller as the league (harness.league.decided: looks, sequential
decisions, adaptive or balanced tables). The truth is the fit over all the pools. A
field of six identical policies (pools mirrored by symmetry: true differences 0) gives
the error over repeated looks, against a naive stop at LOS >= 95%.

Run as ``python bench/league_study.py`` (about five minutes on two busy cores).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from simulate import play_group

from harness.league.decided import DecidedController, TablePicker
from harness.ratings import GameResult, fit_elo
from harness.ratings.decide import Ranking

NAMES = ("p0", "p1", "p2", "p3", "p4", "p5")
NOISE = (0.0, 0.01, 0.025, 0.05, 0.085, 0.12)


@dataclass(frozen=True)
class Row:  # what the controller reads of a finished game
    players: tuple[str, ...]
    places: tuple[int, ...]


Pools = dict[tuple[str, ...], list[list[Row]]]


def pools(noise: dict[str, float], groups: int, seed: int) -> Pools:
    out: Pools = {}
    rng = random.Random(seed)
    for t, table in enumerate(itertools.combinations(NAMES, 4)):
        order = list(table)
        rows = []
        for g in range(groups):
            rng.shuffle(order)
            games = play_group(noise, tuple(order), t * 100_000 + g, seed)
            rows.append([Row(tuple(seating), tuple(places)) for seating, places in games])
        out[table] = rows
    return out


def truth(pool: Pools) -> list[str]:
    games = [
        GameResult(row.players, row.places, f"{table}{g}")
        for table, groups in pool.items()
        for g, group in enumerate(groups)
        for row in group
    ]
    return [bot.name for bot in fit_elo(games).bots]


def relabel(group: list[Row], rng: random.Random) -> list[Row]:
    """The group with the table's bots permuted: identical policies are exchangeable, so the
    true differences of the resampled field are exactly 0 (whatever the pool's noise)."""
    names = sorted(group[0].players)
    shuffled = names[:]
    rng.shuffle(shuffled)
    rename = dict(zip(names, shuffled, strict=True))
    return [Row(tuple(rename[n] for n in row.players), row.places) for row in group]


def league(pool: Pools, adaptive: bool, budget: int, seed: int, naive: bool = False) -> dict[str, object]:
    """One league until decided on groups drawn from the pools (``naive``: identical policies)."""
    rng = random.Random(seed)
    ranking = Ranking(NAMES, budget, 0.95)
    picker = TablePicker(NAMES, 4, seed, adaptive)
    controller = DecidedController(ranking, picker, budget)
    peeked = False
    while tables := controller.next_tables():
        for order in tables:
            group = rng.choice(pool[tuple(sorted(order))])
            controller.group_done(relabel(group, rng) if naive else group)  # type: ignore[arg-type]
        if naive and controller.ranking.looks and not peeked:
            fit = fit_elo(controller.results)
            peeked = any(fit.los[a][b] >= 0.95 for a, b in zip(ranking.order, ranking.order[1:], strict=False))
    return {
        "games": len(controller.results),
        "done": ranking.done(),
        "order": ranking.order,
        "wrong": sum(d.better != min(d.better, d.worse, key=lambda n: NAMES.index(n)) for d in ranking.decided.values()),
        "decided": len(ranking.decided),
        "peeked": peeked,
        "looks": ranking.looks,
    }


def fixed(pool: Pools, order: list[str], games: int, runs: int) -> float:
    """Share of fixed balanced leagues of ``games`` games whose fitted ranking is the true one."""
    hits = 0
    for i in range(runs):
        rng = random.Random(9000 + i)
        picker = TablePicker(NAMES, 4, 9000 + i, adaptive=False)
        results: list[GameResult] = []
        while len(results) < games:
            table = tuple(sorted(picker.pick([], {})))
            group = rng.choice(pool[table])
            results += [GameResult(row.players, row.places, f"d{len(results)}") for row in group]
        hits += [bot.name for bot in fit_elo(results).bots] == order
    return hits / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--groups", type=int, default=120, help="pool size per table")
    parser.add_argument("--budget", type=int, default=20_000, help="--games of each league")
    parser.add_argument("--identical-runs", type=int, default=None, help="leagues of identical policies [--runs]")
    parser.add_argument("--only-identical", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    started = time.perf_counter()
    if not args.only_identical:
        compare(args, started)
    count = args.runs if args.identical_runs is None else args.identical_runs
    if count:
        identical(args, count)
    print(f"({time.perf_counter() - started:.0f} s)")


def compare(args: argparse.Namespace, started: float) -> None:
    """Adaptive against balanced on the six-policy field."""
    field = pools(dict(zip(NAMES, NOISE, strict=True)), args.groups, seed=1)
    order = truth(field)
    fit = fit_elo([GameResult(r.players, r.places, f"{t}{g}") for t, gs in field.items() for g, grp in enumerate(gs) for r in grp])
    gaps = [round(a.rating - b.rating) for a, b in zip(fit.bots, fit.bots[1:], strict=False)]
    print(f"field: 6 policies, true order {' > '.join(order)}, neighbour gaps {gaps} Elo;"
          f" pools of {args.groups} groups x 15 tables ({time.perf_counter() - started:.0f} s)")
    for adaptive in (False, True):
        runs = [league(field, adaptive, args.budget, seed=1000 + i) for i in range(args.runs)]
        games = np.array([r["games"] for r in runs], dtype=float)
        done = np.mean([r["done"] for r in runs])
        correct = np.mean([r["done"] and list(r["order"]) == order for r in runs])  # type: ignore[call-overload]
        wrong = np.mean([r["wrong"] > 0 for r in runs])  # type: ignore[operator]
        label = "adaptive" if adaptive else "balanced"
        if adaptive:
            share = fixed(field, order, int(games.mean()), args.runs)
            print(f"  a fixed balanced league of {games.mean():.0f} games (no stopping rule) ranks all six"
                  f" right in {100 * share:.0f}% of {args.runs}")
        print(f"  {label}: decided in {100 * done:.0f}% of {args.runs} leagues (budget {args.budget}), correct full"
              f" ranking {100 * correct:.0f}%, a wrong decided pair in {100 * wrong:.1f}%;"
              f" games mean {games.mean():.0f}, median {np.median(games):.0f}")


def identical(args: argparse.Namespace, count: int) -> None:
    """Six identical policies: the error over repeated looks, and a naive stop's."""
    same_noise = {name: 0.06 for name in NAMES}
    same = pools(same_noise, max(args.groups // 2, 20), seed=2)
    runs = [league(same, True, args.budget // 2, seed=5000 + i, naive=True) for i in range(count)]
    false = np.mean([r["decided"] > 0 for r in runs])  # type: ignore[operator]
    naive = np.mean([r["peeked"] for r in runs])
    looks = np.mean([r["looks"] for r in runs])
    print(f"  six identical policies ({count} leagues, budget {args.budget // 2}, {looks:.0f} looks each):"
          f" any pair decided (false) in {100 * false:.1f}% (limit 5%);"
          f" a naive stop at LOS >= 95% of an adjacent pair at the same looks in {100 * naive:.0f}%")


if __name__ == "__main__":
    main()
