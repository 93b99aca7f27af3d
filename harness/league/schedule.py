"""The league schedule: which bots share a table, in which seats, with which deals.

A pure function of the bot names, table size, game target, duplicate flag, seed and secret.
The unit of work is a *job*: one table of k bots that plays several games in one
worker (the bot processes live for the whole job).

- Duplicate deals: a *deal group* is one deal seed played in every rotation of the
  table's seating and every rotation of the reversed seating (identical seatings
  once), so every bot holds every hand and every pair meets in both orders. A bot
  process must never see one deal twice (it would know the other hands the second
  time), so a job never holds two games of one group: groups of the same table are
  batched (up to ``GROUPS_PER_JOB``) and job r of a batch plays the r-th seating of
  each of its groups. Each process sees distinct deals; the groups are completed
  across jobs.
- Without duplicates: a job is a few games with fresh seeds, the seats rotating.

Tables: when the combinations of k bots are few, whole cycles over all of them (each
cycle in a seeded order); the remainder, or every table when the combinations are
many, is picked greedily: bots that played least, then pairs that met least, with a
seeded tie-break. Within a job each bot sits in each seat equally often.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from harness.seeds import deal_seed, seed_secret

# Up to this many combinations the schedule cycles through all of them.
EXHAUSTIVE_LIMIT = 2000
# Games per job: enough to amortise starting the bots.
PLAIN_JOB_GAMES = 8
GROUPS_PER_JOB = 8


@dataclass(frozen=True)
class ScheduledGame:
    game_id: int  # 1-based, unique over the league; ratings use this order
    seating: tuple[str, ...]  # bot name by seat
    seed: int  # the deal seed (shared by the games of a deal group)
    cluster: str  # the deal group, or the game itself without duplicates


@dataclass(frozen=True)
class Job:
    job_id: int  # 0-based
    bots: tuple[str, ...]  # the table
    games: tuple[ScheduledGame, ...]


def duplicate_seatings(order: Sequence[str]) -> list[tuple[str, ...]]:
    """Every rotation of ``order`` and of its reverse, identical seatings once, in a fixed order."""
    k = len(order)
    out: list[tuple[str, ...]] = []
    for base in (tuple(order), tuple(reversed(order))):
        for shift in range(k):
            seating = base[shift:] + base[:shift]
            if seating not in out:
                out.append(seating)
    return out


def group_size(table_size: int) -> int:
    """How many games one deal group has."""
    return len(duplicate_seatings([str(i) for i in range(table_size)]))


def choose_tables(names: Sequence[str], k: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """``count`` tables of ``k`` bots from ``names``, balanced as described in the module doc."""
    pool = sorted(names)
    rng = random.Random(f"league:{seed}:tables")
    tables: list[tuple[str, ...]] = []
    combos: list[tuple[str, ...]] | None = None
    if math.comb(len(pool), k) <= EXHAUSTIVE_LIMIT:
        combos = list(itertools.combinations(pool, k))
        while count - len(tables) >= len(combos):
            cycle = combos[:]
            rng.shuffle(cycle)
            tables.extend(cycle)
    played: Counter[str] = Counter()
    met: Counter[tuple[str, str]] = Counter()

    def record(table: Sequence[str]) -> None:
        played.update(table)
        met.update(itertools.combinations(sorted(table), 2))

    for table in tables:
        record(table)
    while len(tables) < count:
        if combos is not None:
            table = min(
                combos,
                key=lambda c: (
                    sum(played[b] for b in c),
                    sum(met[p] ** 2 for p in itertools.combinations(c, 2)),
                    rng.random(),
                ),
            )
        else:
            chosen: list[str] = []
            for _ in range(k):
                best = min(
                    (b for b in pool if b not in chosen),
                    key=lambda b: (
                        played[b],
                        sum(met[(min(b, c), max(b, c))] ** 2 for c in chosen),
                        rng.random(),
                    ),
                )
                chosen.append(best)
            table = tuple(sorted(chosen))
        tables.append(table)
        record(table)
    # A seeded seating order per table, so neighbours (who plays before whom) vary.
    ordered = []
    for table in tables:
        order = list(table)
        rng.shuffle(order)
        ordered.append(tuple(order))
    return ordered


def make_schedule(
    names: Sequence[str],
    table_size: int,
    games: int,
    seed: int,
    duplicate: bool = True,
    secret: str | None = None,
) -> list[Job]:
    """The league's jobs: at least ``games`` games, rounded up to whole deal groups (jobs without duplicates).

    ``seed`` orders the tables; every deal is hashed from ``secret`` (by default the
    public one ``seed`` stands for). Raises ValueError if ``table_size`` does not fit
    the number of bots.
    """
    secret = seed_secret(seed) if secret is None else secret
    if not 2 <= table_size <= len(names):
        raise ValueError(f"table size {table_size!r} does not fit {len(names)} bots")
    if duplicate:
        return _duplicate_jobs(names, table_size, games, seed, secret)
    per_job = table_size * max(1, PLAIN_JOB_GAMES // table_size)
    jobs: list[Job] = []
    game_id = 0
    for job_id, order in enumerate(
        choose_tables(names, table_size, max(1, math.ceil(games / per_job)), seed)
    ):
        scheduled: list[ScheduledGame] = []
        for index in range(per_job):
            game_id += 1
            shift = index % table_size
            seating = order[shift:] + order[:shift]
            game_seed = deal_seed(secret, "game", game_id)
            scheduled.append(ScheduledGame(game_id, seating, game_seed, f"g{game_id}"))
        jobs.append(Job(job_id, order, tuple(scheduled)))
    return jobs


def _duplicate_jobs(names: Sequence[str], table_size: int, games: int, seed: int, secret: str) -> list[Job]:
    size = group_size(table_size)
    groups: list[list[ScheduledGame]] = []
    game_id = 0
    for group_id, order in enumerate(choose_tables(names, table_size, max(1, math.ceil(games / size)), seed)):
        deal = deal_seed(secret, "group", group_id)
        group = []
        for seating in duplicate_seatings(order):
            game_id += 1
            group.append(ScheduledGame(game_id, seating, deal, f"d{group_id}"))
        groups.append(group)
    # batch the groups of one table, in schedule order
    batches: list[tuple[tuple[str, ...], list[list[ScheduledGame]]]] = []
    filling: dict[tuple[str, ...], list[list[ScheduledGame]]] = {}
    for group in groups:
        table = tuple(sorted(group[0].seating))
        batch = filling.get(table)
        if batch is None or len(batch) == GROUPS_PER_JOB:
            batch = filling[table] = []
            batches.append((table, batch))
        batch.append(group)
    jobs: list[Job] = []
    for table, batch in batches:
        for index in range(size):
            jobs.append(Job(len(jobs), table, tuple(group[index] for group in batch)))
    return jobs
