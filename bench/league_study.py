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

The naive stop (likelihood of superiority >= 95% for an adjacent pair) is checked at the
controller's own looks, on the same games. Leagues with ``--margin`` count a pair
called equal whose true difference exceeds the margin as a wrong statement.

Run as ``python bench/league_study.py`` (quick: 10 leagues a row, small pools, 20
identical leagues; 13 minutes wall at load ~24) or ``--full`` (40 leagues a row, 200 identical
leagues; ``--identical-runs 100`` took 134 s of CPU).
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
from harness.ratings.decide import DEFAULT_MARGIN, Ranking

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


def league(
    pool: Pools, adaptive: bool, budget: int, seed: int, naive: bool = False, margin: float = 0.0,
    gaps: dict[frozenset[str], float] | None = None, identical: bool = False,
) -> dict[str, object]:
    """One league until decided on groups drawn from the pools.

    ``identical`` (or ``naive``): identical policies, each group's bots permuted (true
    differences exactly 0); ``naive`` also checks the naive stop.

    The naive stop is checked at the controller's own looks (after the same groups, on
    the same games), as a user watching ``ratings`` at those moments would. ``gaps``:
    the true difference of each pair, to count pairs wrongly called equal within ``margin``.
    """
    rng = random.Random(seed)
    ranking = Ranking(NAMES, budget, 0.95, margin=margin)
    picker = TablePicker(NAMES, 4, seed, adaptive)
    controller = DecidedController(ranking, picker, budget)
    peeked = False
    while tables := controller.next_tables():
        for order in tables:
            group = rng.choice(pool[tuple(sorted(order))])
            looks = ranking.looks
            controller.group_done(relabel(group, rng) if naive or identical else group)  # type: ignore[arg-type]
            if naive and ranking.looks > looks and not peeked:  # this group made a look
                fit = fit_elo(controller.results)
                peeked = any(fit.los[a][b] >= 0.95 for a, b in zip(ranking.order, ranking.order[1:], strict=False))
    false_equal = sum(abs((gaps or {}).get(key, 0.0)) > margin for key in ranking.equal)
    return {
        "games": len(controller.results),
        "done": ranking.done(),
        "order": ranking.order,
        "wrong": sum(d.better != min(d.better, d.worse, key=lambda n: NAMES.index(n)) for d in ranking.decided.values())
        + false_equal,
        "decided": len(ranking.decided),
        "equal": len(ranking.equal),
        "tied": len(ranking.tied()),
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
    parser.add_argument("--full", action="store_true", help="the docs' full run: 40 leagues a row, 200 identical")
    parser.add_argument("--runs", type=int, default=None, help="leagues a row [10; --full 40]")
    parser.add_argument("--groups", type=int, default=None, help="pool size per table [60; --full 120]")
    parser.add_argument("--budget", type=int, default=20_000, help="--games of each league")
    parser.add_argument("--margin", type=float, default=DEFAULT_MARGIN, help="--margin of the leagues with one")
    parser.add_argument("--identical-runs", type=int, default=None, help="leagues of identical policies [20; --full 200]")
    parser.add_argument("--only-identical", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.runs = args.runs or (40 if args.full else 10)
    args.groups = args.groups or (120 if args.full else 60)
    started = time.perf_counter()
    if not args.only_identical:
        compare(args, started)
    count = args.identical_runs if args.identical_runs is not None else (200 if args.full else 20)
    if count:
        identical(args, count)
    print(f"({time.perf_counter() - started:.0f} s)")


def compare(args: argparse.Namespace, started: float) -> None:
    """Adaptive against balanced on the six-policy field, and adaptive with a margin."""
    field = pools(dict(zip(NAMES, NOISE, strict=True)), args.groups, seed=1)
    order = truth(field)
    fit = fit_elo([GameResult(r.players, r.places, f"{t}{g}") for t, gs in field.items() for g, grp in enumerate(gs) for r in grp])
    rating = {bot.name: bot.rating for bot in fit.bots}
    true_gaps = {frozenset((a, b)): rating[a] - rating[b] for a in NAMES for b in NAMES if a < b}
    gaps = [round(a.rating - b.rating) for a, b in zip(fit.bots, fit.bots[1:], strict=False)]
    print(f"field: 6 policies, true order {' > '.join(order)}, neighbour gaps {gaps} Elo;"
          f" pools of {args.groups} groups x 15 tables ({time.perf_counter() - started:.0f} s)")
    for adaptive, margin in ((False, 0.0), (True, 0.0), (True, args.margin)):
        runs = [league(field, adaptive, args.budget, 1000 + i, margin=margin, gaps=true_gaps) for i in range(args.runs)]
        games = np.array([r["games"] for r in runs], dtype=float)
        done = np.mean([r["done"] for r in runs])
        correct = np.mean([r["done"] and list(r["order"]) == order for r in runs])  # type: ignore[call-overload]
        wrong = np.mean([r["wrong"] > 0 for r in runs])  # type: ignore[operator]
        tied = np.mean([r["tied"] for r in runs])
        label = ("adaptive" if adaptive else "balanced") + (f", --margin {margin:g}" if margin else ", no margin")
        if adaptive and not margin:
            share = fixed(field, order, int(games.mean()), args.runs)
            print(f"  a fixed balanced league of {games.mean():.0f} games (no stopping rule) ranks all six"
                  f" right in {100 * share:.0f}% of {args.runs}")
        print(f"  {label}: decided in {100 * done:.0f}% of {args.runs} leagues (budget {args.budget}), in the true"
              f" order {100 * correct:.0f}%, a wrong statement (order, or equal beyond the margin) in {100 * wrong:.1f}%;"
              f" adjacent pairs called equal {tied:.1f} a league; games mean {games.mean():.0f},"
              f" median {np.median(games):.0f}")


def identical(args: argparse.Namespace, count: int) -> None:
    """Six identical policies: the error over repeated looks, a naive stop's, and a margin's end."""
    same_noise = {name: 0.06 for name in NAMES}
    same = pools(same_noise, max(args.groups // 2, 20), seed=2)
    runs = [league(same, True, args.budget // 2, seed=5000 + i, naive=True) for i in range(count)]
    false = np.mean([r["decided"] > 0 for r in runs])  # type: ignore[operator]
    naive = np.mean([r["peeked"] for r in runs])
    looks = np.mean([r["looks"] for r in runs])
    print(f"  six identical policies ({count} leagues, budget {args.budget // 2}, {looks:.0f} looks each):"
          f" any pair decided (false) in {100 * false:.1f}% (limit 5%);"
          f" a naive stop at LOS >= 95% of an adjacent pair at the same looks in {100 * naive:.1f}%")
    tied = [league(same, True, args.budget // 2, seed=7000 + i, margin=args.margin, identical=True) for i in range(count)]
    games = np.array([r["games"] for r in tied], dtype=float)
    ended = np.mean([r["done"] for r in tied])
    ordered = np.mean([r["decided"] > 0 for r in tied])  # type: ignore[operator]
    print(f"  the same with --margin {args.margin:g}: ended (every adjacent pair equal within the margin) in"
          f" {100 * ended:.0f}% of {count}, games mean {games.mean():.0f}, median {np.median(games):.0f}"
          f" (budget {args.budget // 2}); a pair ordered (false) in {100 * ordered:.1f}%")


if __name__ == "__main__":
    main()
