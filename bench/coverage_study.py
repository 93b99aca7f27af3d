"""Coverage study of the ratings' 95% intervals: leagues with known true ratings, fitted by
the real `fit_elo`, at any gap and sample size.

Games follow a Plackett-Luce model: a bot's performance in a game is its true rating
plus its seat's advantage (natural units) plus standard Gumbel noise, and places follow
the performances, so every pair at a table has exactly the Bradley-Terry probability
the fit assumes. Deal groups are played as the harness plays duplicate deals: the
seatings of `harness.league.schedule.duplicate_seatings` (2 games heads-up, 8 at a
table of four), one deal for all; the deal gives each seat a hand whose luck (a Gumbel
draw) the seat's holder gets with probability RHO instead of a fresh draw, so the games
of a group are correlated the way duplicate deals are (the hands swap between the bots).

Cells: tables of 2 (two bots) and 4 (four bots at one table), true ratings evenly
spaced from 0 to the gap, 13 / 50 / 200 deal groups. Each run fits its league anchored
at the weakest bot pinned at its true rating, so each other bot's interval is the
interval of its difference to the weakest; coverage counts, over those differences,
how often the 95% interval (`BotRating.low`..`high`, open on one side for a bot at an
edge) holds the truth. Bias: the strongest bot's mean-centred rating minus its true
centred rating. "open": share of runs with a one-sided interval. The gauntlet cell: a
field of four bots 0 / 50 / 100 / 150 that played 50 groups among themselves, and one
new bot 525 above the field's mean at 50 groups of tables of four with three of them,
fitted with the field's mean as the anchor (as the league does for `--gauntlet`).

Run as ``nice python bench/coverage_study.py [--runs 1000]`` (a few minutes per 1000 runs).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import harness.ratings.fit as fit_module  # noqa: E402
from harness.league.schedule import duplicate_seatings  # noqa: E402
from harness.ratings import BotRating, fit_elo  # noqa: E402
from harness.ratings.columns import Results  # noqa: E402

NAT_PER_ELO = math.log(10.0) / 400.0
RHO = 0.5  # share of a seat's noise that is its hand's luck
SEATS = {2: np.array([20.0, -20.0]), 4: np.array([30.0, 10.0, -10.0, -30.0])}
GAPS = (0, 50, 200, 600)
GROUPS = (13, 50, 200)
GAUNTLET_GAP = 525.0
FIELD = np.array([0.0, 50.0, 100.0, 150.0])

IntArray = npt.NDArray[np.int64]


def _seating_slots(n: int) -> IntArray:
    """(games, seats): the slot of the table's order that sits at each seat, per game."""
    slots = [tuple(int(x) for x in seating) for seating in duplicate_seatings([str(i) for i in range(n)])]
    return np.array(slots, dtype=np.int64)


def play(true: npt.NDArray[np.float64], tables: IntArray, rng: np.random.Generator) -> Results:
    """One duplicate deal group per row of ``tables`` (bot indices in seating order)."""
    groups, n = tables.shape
    slots = _seating_slots(n)
    games = len(slots)
    seat_bot = tables[:, slots]  # (groups, games, seats)
    luck = rng.gumbel(size=(groups, 1, n))
    fresh = rng.gumbel(size=(groups, games, n))
    noise = np.where(rng.random((groups, games, n)) < RHO, luck, fresh)
    perf = (true[seat_bot] + SEATS[n][None, None, :]) * NAT_PER_ELO + noise
    places = np.argsort(np.argsort(-perf, axis=2), axis=2) + 1
    count = groups * games
    return Results(
        names=tuple(f"b{i}" for i in range(len(true))),
        offsets=np.arange(0, count * n + 1, n, dtype=np.int64),
        bot=seat_bot.reshape(-1).astype(np.int32),
        place=places.reshape(-1).astype(np.int32),
        forfeited=np.zeros(count * n, dtype=np.int32),
        cluster=np.repeat(np.arange(groups, dtype=np.int32), games),
        clusters=groups,
    )


BEFORE = False  # --before: the old prior (2 draws per pair) and closed intervals at the edges


def holds(bot: BotRating, truth: float) -> bool:
    """Whether the bot's 95% interval holds ``truth`` (``--before``: rating ± ci95, never open)."""
    if BEFORE:
        return abs(bot.rating - truth) <= bot.ci95
    return bot.low <= truth <= bot.high


@dataclass
class Cell:
    hits: int = 0
    intervals: int = 0
    bias: float = 0.0
    runs: int = 0
    open_runs: int = 0

    def add(self, hits: list[bool], bias: float, opened: bool) -> None:
        self.hits += sum(hits)
        self.intervals += len(hits)
        self.bias += bias
        self.runs += 1
        self.open_runs += opened

    def line(self, label: str) -> str:
        share = self.hits / self.intervals
        se = math.sqrt(share * (1.0 - share) / self.runs)
        return (f"{label}: coverage {100 * share:5.1f}% (± {100 * se:.1f}), top bias {self.bias / self.runs:+6.1f} Elo,"
                f" open {100 * self.open_runs / self.runs:4.1f}% of {self.runs} runs")


def league_cell(n: int, gap: float, groups: int, runs: int, seed: int) -> Cell:
    """Tables of ``n`` with ``n`` bots spaced evenly from 0 to ``gap``."""
    rng = np.random.default_rng(seed)
    true = np.linspace(0.0, gap, n)
    names = tuple(f"b{i}" for i in range(n))
    truth = dict(zip(names, true.tolist(), strict=True))
    cell = Cell()
    for _ in range(runs):
        tables = np.argsort(rng.random((groups, n)), axis=1)  # seating order shuffled per group
        fit = fit_elo(play(true, tables, rng), anchor=(names[0], 0.0))
        by_name = {bot.name: bot for bot in fit.bots}
        centre = float(np.mean([bot.rating for bot in fit.bots]))
        bias = (by_name[names[-1]].rating - centre) - (true[-1] - true.mean())
        hits = [holds(by_name[name], truth[name]) for name in names[1:]]
        cell.add(hits, bias, any(bot.bound for bot in fit.bots))
    return cell


def gauntlet_cell(groups: int, runs: int, seed: int) -> Cell:
    """A new bot GAUNTLET_GAP above a field of four that has played ``groups`` groups of its own."""
    rng = np.random.default_rng(seed)
    true = np.append(FIELD, FIELD.mean() + GAUNTLET_GAP)
    new = len(FIELD)
    names = tuple(f"b{i}" for i in range(len(true)))
    cell = Cell()
    for _ in range(runs):
        own = np.argsort(rng.random((groups, len(FIELD))), axis=1)
        # the new bot with three of the field, the one sitting out in turn
        picks = np.array([[f for f in range(len(FIELD)) if f != g % len(FIELD)] + [new] for g in range(groups)])
        order = np.argsort(rng.random((groups, 4)), axis=1)
        challenge = np.take_along_axis(picks, order, axis=1)
        field, tried = play(true, own, rng), play(true, challenge, rng)
        both = Results(
            names=names,
            offsets=np.concatenate([field.offsets, tried.offsets[1:] + field.offsets[-1]]),
            bot=np.concatenate([field.bot, tried.bot]),
            place=np.concatenate([field.place, tried.place]),
            forfeited=np.concatenate([field.forfeited, tried.forfeited]),
            cluster=np.concatenate([field.cluster, tried.cluster + groups]),
            clusters=2 * groups,
        )
        fit = fit_elo(both, anchor_group=names[:new])
        bot = next(b for b in fit.bots if b.name == names[new])
        truth = 1500.0 + GAUNTLET_GAP
        cell.add([holds(bot, truth)], bot.rating - truth, bot.bound is not None)
    return cell


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000, help="leagues per cell [1000]")
    parser.add_argument("--tables", type=int, nargs="*", default=[2, 4], help="table sizes [2 4]")
    parser.add_argument("--gaps", type=float, nargs="*", default=list(GAPS), help="Elo from weakest to strongest")
    parser.add_argument("--groups", type=int, nargs="*", default=list(GROUPS), help="deal groups per league")
    parser.add_argument("--no-gauntlet", action="store_true")
    parser.add_argument("--before", action="store_true", help="the old fit: 2 draws per pair, no open bounds")
    parser.add_argument("--prior", type=float, help="virtual draws per bot instead of the fit's PRIOR_DRAWS")
    args = parser.parse_args()
    if args.prior is not None:
        fit_module.PRIOR_DRAWS = args.prior
    if args.before:
        global BEFORE
        BEFORE = True
        fit_module.SCARCE = 1e-9  # only the edge bots got the model-based error
        fit_module.prior_draws = lambda m, first, second: np.full(len(first), 2.0)
    started = time.perf_counter()
    fit = (
        "before: 2 virtual draws per pair, closed intervals"
        if args.before
        else f"{fit_module.PRIOR_DRAWS:g} virtual draw(s) per bot, open bounds at edges"
    )
    print(f"95% intervals of the difference to the weakest bot ({fit}); {args.runs} leagues per cell; RHO {RHO}")
    for n, gap, groups in ((n, gap, groups) for n in args.tables for gap in args.gaps for groups in args.groups):
        cell = league_cell(n, gap, groups, args.runs, seed=int(n * 1_000_000 + gap * 1000 + groups))
        label = "heads-up" if n == 2 else f"{n}-seat  "
        print(cell.line(f"{label} gap {gap:4.0f} groups {groups:3d}"), flush=True)
    if not args.no_gauntlet:
        cell = gauntlet_cell(50, args.runs, seed=99)
        print(cell.line(f"gauntlet: new bot {GAUNTLET_GAP:.0f} above a field of 4, 50 groups"), flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
