"""``league --until-decided``: play until every adjacent pair of the ranking is decided.

Decided means ordered, or (with ``--margin``) equal within ±margin Elo: too close to
call, so the pair stops needing games (`harness.ratings.decide`).

Deal groups are played a batch at a time (`harness.league.until`); after every few
finished groups the ratings are refitted and `harness.ratings.decide.Ranking` tests
every pair with its error spent across the looks. The league ends when every adjacent
pair of the ranking is decided, or at the game budget (``--games``).

Where the next groups go: *adaptive* (the default) picks the table holding the most
undecided adjacent pairs (ties: the table and then the bots that played least), so the
games go where the ranking is uncertain; *balanced* takes the fixed league's tables.
Either way every group is a full duplicate group (every rotation of the seating and of
its reverse, one deal), so seats and hands stay balanced within it. A gauntlet asks
only where each new bot stands in the field (`Ranking` with ``new``), and every table
seats one new bot with field bots (`GauntletPicker`).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from harness.league.config import LeagueConfig
from harness.league.runner import JobOutcome
from harness.league.schedule import EXHAUSTIVE_LIMIT, group_size, iter_tables
from harness.league.store import Store
from harness.league.until import Played, SequentialRun, run_sequential
from harness.ratings import GameResult, fit_elo
from harness.ratings.decide import Ranking

GROUPS_PER_BATCH = 4
# Looks: the first after FIRST_LOOK of the budget (at least a few groups), then each at
# LOOK_GROWTH times the games of the one before, and the last at the budget (~20 looks:
# fewer looks, less error to split between them by the union bound).
FIRST_LOOK = 1 / 64
LOOK_GROWTH = 1.25
DECISIONS = "decisions"  # the store's meta key: the ranking's decisions, updated at every look


@dataclass
class TablePicker:
    """Chooses the table of the next batch: balanced (the league's order) or adaptive."""

    names: tuple[str, ...]
    size: int
    seed: int
    adaptive: bool = True
    groups: Counter[tuple[str, ...]] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._balanced: Iterator[tuple[str, ...]] = iter_tables(self.names, self.size, self.seed)
        self._rng = random.Random(f"league:{self.seed}:adaptive")
        small = math.comb(len(self.names), self.size) <= EXHAUSTIVE_LIMIT
        self._tables: list[tuple[str, ...]] | None = None
        if small:
            self._tables = [tuple(c) for c in itertools.combinations(sorted(self.names), self.size)]

    def pick(self, undecided: Sequence[tuple[str, str]], evidence: Mapping[frozenset[str], float]) -> tuple[str, ...]:
        """The seating order of the next table.

        Adaptive: the table whose undecided adjacent pairs need the most games, a pair
        weighing 1/z² (z: its difference over its error at the last look; the games a
        pair still needs grow as 1/z²).
        """
        table: tuple[str, ...]
        if not self.adaptive or not undecided or self._tables is None:
            table = next(self._balanced)
        else:
            need = {frozenset(pair): 1.0 / max(evidence.get(frozenset(pair), 0.0), 0.5) ** 2 for pair in undecided}

            def score(candidate: tuple[str, ...]) -> tuple[float, int, int, float]:
                members = set(candidate)
                holds = sum(weight for pair, weight in need.items() if pair <= members)
                return (-holds, self.groups[candidate], sum(self.played[b] for b in candidate), self._rng.random())

            tables: list[tuple[str, ...]] = self._tables
            order = list(min((score(candidate), candidate) for candidate in tables)[1])
            self._rng.shuffle(order)  # who sits next to whom varies
            table = tuple(order)
        self.groups[tuple(sorted(table))] += 1
        self.played.update(table)
        return table

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None:
        """Count the tables of a run cut short; the choices after it are drawn afresh."""
        for table in tables:
            self.groups[tuple(sorted(table))] += 1
            self.played.update(table)
        self._rng = random.Random(f"league:{self.seed}:adaptive:{len(tables)}")
        for _ in range(math.ceil(len(tables) / GROUPS_PER_BATCH)):  # a balanced pick makes a batch
            next(self._balanced)


class Picker(Protocol):
    size: int  # seats at a table

    def pick(self, undecided: Sequence[tuple[str, str]], evidence: Mapping[frozenset[str], float]) -> tuple[str, ...]: ...

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None: ...


@dataclass
class GauntletPicker:
    """A gauntlet's tables: one new bot and ``size - 1`` field bots; new bots never meet.

    Before the first look the new bots take turns at balanced field tables (as in a
    fixed gauntlet). Then adaptive: the new bot whose undecided pairs need the most games
    (a pair weighing 1/z², as in `TablePicker`) sits with the field bots of those pairs
    first, the rest of a balanced field table filling the other seats.
    """

    new: tuple[str, ...]
    field_bots: tuple[str, ...]
    size: int
    seed: int
    adaptive: bool = True
    played: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._tables: Iterator[tuple[str, ...]] = iter_tables(self.field_bots, self.size - 1, self.seed)
        self._rng = random.Random(f"league:{self.seed}:gauntlet-adaptive")
        self._turn = 0

    def pick(self, undecided: Sequence[tuple[str, str]], evidence: Mapping[frozenset[str], float]) -> tuple[str, ...]:
        """The seating order of the next table."""
        field_table = list(next(self._tables))
        need = {pair: 1.0 / max(evidence.get(frozenset(pair), 0.0), 0.5) ** 2 for pair in undecided}
        if not self.adaptive or not need:
            newcomer = self.new[self._turn % len(self.new)]
            self._turn += 1
            seats = field_table
        else:
            weight = {name: sum(w for pair, w in need.items() if name in pair) for name in self.new}
            newcomer = max(self.new, key=lambda name: (weight[name], -self.played[name], self._rng.random()))
            wanted = [
                other
                for pair, _ in sorted(need.items(), key=lambda item: -item[1])
                if newcomer in pair
                for other in pair
                if other != newcomer
            ]
            wanted = list(dict.fromkeys(wanted))[: self.size - 1]
            seats = wanted + [name for name in field_table if name not in wanted][: self.size - 1 - len(wanted)]
        order = list(seats)
        self._rng.shuffle(order)  # who sits next to whom varies
        order.insert(self._rng.randrange(self.size), newcomer)
        self.played.update(order)
        return tuple(order)

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None:
        """Count the tables of a run cut short; the choices after it are drawn afresh."""
        for table in tables:
            self.played.update(table)
        self._turn = len(tables)
        self._rng = random.Random(f"league:{self.seed}:gauntlet-adaptive:{len(tables)}")
        for _ in range(math.ceil(len(tables) / GROUPS_PER_BATCH)):  # a pick makes a batch
            next(self._tables)


@dataclass
class DecidedController:
    """Schedules batches until `Ranking` says every adjacent pair is decided, or the budget is spent."""

    ranking: Ranking
    picker: Picker
    budget: int
    publish: Callable[[Ranking], None] | None = None
    results: list[GameResult] = field(default_factory=list)
    scheduled: int = 0
    finished_groups: int = 0
    shared: Counter[frozenset[str]] = field(default_factory=Counter)  # deal groups per pair
    stopped: bool = False

    def __post_init__(self) -> None:
        self.size = group_size(self.picker.size)
        total = max(1, self.budget // self.size)
        marks, mark = [], max(4.0, total * FIRST_LOOK)
        while mark < total:
            marks.append(math.ceil(mark))
            mark *= LOOK_GROWTH
        self.marks = {*marks, total}

    def next_tables(self) -> list[tuple[str, ...]]:
        room = (self.budget - self.scheduled) // self.size
        if self.stopped or room <= 0:
            return []
        order = self.picker.pick(self.ranking.undecided(), self.ranking.evidence)
        count = min(GROUPS_PER_BATCH, room)
        self.scheduled += count * self.size
        return [order] * count

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None:
        self.scheduled += len(tables) * self.size
        self.picker.resume(tables)

    def decided(self) -> bool:
        """Whether every adjacent pair is decided (ordered, or equal within the margin)."""
        return self.stopped

    def group_done(self, group: Sequence[Played]) -> None:
        if self.stopped:
            return
        cluster = f"d{self.finished_groups}"
        self.results += [GameResult(row.players, row.places, cluster) for row in group]
        self.shared.update(frozenset(pair) for pair in itertools.combinations(group[0].players, 2))
        self.finished_groups += 1
        last = len(self.results) + self.size > self.budget
        if self.finished_groups in self.marks or last:
            self.look()

    def look(self) -> None:
        if len({name for game in self.results for name in game.players}) < len(self.ranking.names):
            return  # every bot has to have played before the ranking means anything
        self.ranking.look(fit_elo(self.results), len(self.results), self.shared)
        self.stopped = self.ranking.done()
        if self.publish is not None:
            self.publish(self.ranking)


def run_until_decided(
    config: LeagueConfig,
    folder: Path,
    *,
    confidence: float = 0.95,
    margin: float = 0.0,
    adaptive: bool = True,
    listener: Callable[[JobOutcome], None] | None = None,
    force: bool = False,
    started: Callable[[Store], None] | None = None,
    cluster: str | None = None,
) -> tuple[SequentialRun, Ranking]:
    """Play ``config``'s bots until decided or ``config.games``; record the decisions in the store.

    ``started`` is called with the store once it is open (a resumed run's games are in it).
    """
    names = tuple(config.names)
    seed = config.seed if isinstance(config.seed, int) else 0
    picker: Picker
    if config.gauntlet:  # where each new bot stands in the field
        ranking = Ranking(names, config.games, confidence, new=frozenset(config.gauntlet), margin=margin)
        picker = GauntletPicker(tuple(config.gauntlet), tuple(config.field_names), config.table_size, seed, adaptive)
    else:
        ranking = Ranking(names, config.games, confidence, margin=margin)
        picker = TablePicker(names, config.table_size, seed, adaptive)
    controller = DecidedController(ranking, picker, config.games)

    def opened(store: Store) -> None:
        controller.publish = lambda r: store.set_meta(DECISIONS, r.to_dict())
        store.set_meta(DECISIONS, ranking.to_dict())  # a resume looks again at the groups so far
        if started is not None:
            started(store)

    decided: dict[str, object] = {"confidence": confidence, "adaptive": adaptive}
    if margin:  # no margin is the run a folder made before --margin holds: it resumes with --margin 0
        decided["margin"] = margin
    identity = {**config.identity(), "until_decided": decided}
    run = run_sequential(
        config, folder, controller, identity=identity, listener=listener, started=opened, force=force, cluster=cluster
    )
    return run, ranking
