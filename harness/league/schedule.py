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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from harness.seeds import deal_seed, seed_secret

# Up to this many combinations the schedule cycles through all of them.
EXHAUSTIVE_LIMIT = 2000
# Games per job: enough to amortise starting the bots.
PLAIN_JOB_GAMES = 8
GROUPS_PER_JOB = 8
MAX_WAITING = 4096


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


def iter_tables(names: Sequence[str], k: int, seed: int, count: int | None = None) -> Iterator[tuple[str, ...]]:
    """``count`` tables (endless if None), made lazily, with their seating order shuffled.

    Whole cycles over the combinations while ``count`` leaves room for one, then the
    greedy pick (also the only pick when the combinations are many).
    """
    pool = sorted(names)
    rng = random.Random(f"league:{seed}:tables")
    seating = random.Random(f"league:{seed}:seating")
    played: Counter[str] = Counter()
    met: Counter[tuple[str, str]] = Counter()

    def record(table: Sequence[str]) -> tuple[str, ...]:
        played.update(table)
        met.update(itertools.combinations(sorted(table), 2))
        # a seeded seating order per table, so neighbours (who plays before whom) vary
        order = list(table)
        seating.shuffle(order)
        return tuple(order)

    left = math.inf if count is None else count
    combos: list[tuple[str, ...]] | None = None
    if math.comb(len(pool), k) <= EXHAUSTIVE_LIMIT:
        combos = list(itertools.combinations(pool, k))
        while left >= len(combos):
            cycle = combos[:]
            rng.shuffle(cycle)
            for table in cycle:
                yield record(table)
            left -= len(combos)
    while left > 0:
        left -= 1
        if combos is not None:
            table = min(
                combos,
                key=lambda c: (
                    sum(played[b] for b in c),
                    sum(met[p] ** 2 for p in itertools.combinations(c, 2)),
                    rng.random(),
                ),
            )
            yield record(table)
            continue
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
        yield record(tuple(sorted(chosen)))


def make_schedule(
    names: Sequence[str],
    table_size: int,
    games: int,
    seed: int,
    duplicate: bool = True,
    secret: str | None = None,
) -> list[Job]:
    """The league's jobs as a list (see `iter_schedule`)."""
    return list(iter_schedule(names, table_size, games, seed, duplicate, secret))


def iter_schedule(
    names: Sequence[str],
    table_size: int,
    games: int,
    seed: int,
    duplicate: bool = True,
    secret: str | None = None,
) -> Iterator[Job]:
    """The league's jobs, made lazily: at least ``games`` games, rounded up to whole deal
    groups (jobs without duplicates). Memory stays flat at any length.

    ``seed`` orders the tables; every deal is hashed from ``secret`` (by default the
    public one ``seed`` stands for). Raises ValueError if ``table_size`` does not fit
    the number of bots.
    """
    secret = seed_secret(seed) if secret is None else secret
    if not 2 <= table_size <= len(names):
        raise ValueError(f"table size {table_size!r} does not fit {len(names)} bots")
    if duplicate:
        yield from _duplicate_jobs(names, table_size, games, seed, secret)
        return
    per_job = table_size * max(1, PLAIN_JOB_GAMES // table_size)
    count = max(1, math.ceil(games / per_job))
    game_id = 0
    for job_id, order in enumerate(iter_tables(names, table_size, seed, count)):
        scheduled: list[ScheduledGame] = []
        for index in range(per_job):
            game_id += 1
            shift = index % table_size
            seating = order[shift:] + order[:shift]
            game_seed = deal_seed(secret, "game", game_id)
            scheduled.append(ScheduledGame(game_id, seating, game_seed, f"g{game_id}"))
        yield Job(job_id, order, tuple(scheduled))


def deal_group(group_id: int, order: Sequence[str], secret: str, first_game: int) -> list[ScheduledGame]:
    """Deal group ``group_id`` at a table seated ``order``: its games from id ``first_game`` on."""
    deal = deal_seed(secret, "group", group_id)
    return [
        ScheduledGame(first_game + index, seating, deal, f"d{group_id}")
        for index, seating in enumerate(duplicate_seatings(order))
    ]


def batch_jobs(first_job: int, table: tuple[str, ...], batch: Sequence[Sequence[ScheduledGame]]) -> list[Job]:
    """The jobs of a batch of groups at one table: job r plays the r-th seating of each group."""
    return [
        Job(first_job + index, table, tuple(group[index] for group in batch)) for index in range(len(batch[0]))
    ]


def _duplicate_jobs(names: Sequence[str], table_size: int, games: int, seed: int, secret: str) -> Iterator[Job]:
    count = max(1, math.ceil(games / group_size(table_size)))
    return _batched(iter_tables(names, table_size, seed, count), secret)


def iter_gauntlet(
    new: Sequence[str], field: Sequence[str], table_size: int, games: int, seed: int, secret: str
) -> Iterator[Job]:
    """A gauntlet's jobs: every deal group seats one new bot (in turn) with ``table_size - 1``
    field bots (balanced as a league of the field), lazily; new bots never meet each other."""
    if not 2 <= table_size <= len(field) + 1:
        raise ValueError(f"table size {table_size!r} does not fit one new bot and {len(field)} field bots")
    count = max(1, math.ceil(games / group_size(table_size)))
    rng = random.Random(f"league:{seed}:gauntlet")
    tables = iter_tables(field, table_size - 1, seed)

    def orders() -> Iterator[tuple[str, ...]]:
        for group_id in range(count):
            order = list(next(tables))
            order.insert(rng.randrange(table_size), new[group_id % len(new)])
            yield tuple(order)

    return _batched(orders(), secret)


def _batched(orders: Iterator[tuple[str, ...]], secret: str) -> Iterator[Job]:
    """Deal groups at the tables ``orders`` gives, batched by table into jobs."""
    # groups of one table wait to be batched (up to GROUPS_PER_JOB); at most
    # MAX_WAITING groups wait in all, so memory stays flat with many distinct tables
    filling: dict[tuple[str, ...], list[list[ScheduledGame]]] = {}
    waiting = 0
    job_id = 0
    game_id = 0
    for group_id, order in enumerate(orders):
        group = deal_group(group_id, order, secret, game_id + 1)
        game_id += len(group)
        table = tuple(sorted(order))
        batch = filling.setdefault(table, [])
        batch.append(group)
        waiting += 1
        if len(batch) == GROUPS_PER_JOB:
            del filling[table]
        elif waiting > MAX_WAITING:
            table, batch = next(iter(filling.items()))  # the oldest
            del filling[table]
        else:
            continue
        waiting -= len(batch)
        jobs = batch_jobs(job_id, table, batch)
        job_id += len(jobs)
        yield from jobs
    for table, batch in filling.items():
        jobs = batch_jobs(job_id, table, batch)
        job_id += len(jobs)
        yield from jobs


# A match is cut into about this many jobs: progress and resumes per job, yet few restarts.
MATCH_JOBS = 20
MATCH_JOB_MAX = 64


def match_schedule(names: Sequence[str], games: int, secret: str) -> list[Job]:
    """A match: one table of every bot, seats rotating (``seating_for``), a fresh deal per game.

    Game g (1-based) is seated ``seating_for(names, g - 1)`` and dealt ``deal_seed(secret, g)``,
    as a match always was; the games are cut into jobs of whole seat rotations.
    """
    k = len(names)
    per_job = k * max(1, min(MATCH_JOB_MAX // k, math.ceil(games / (MATCH_JOBS * k))))
    jobs: list[Job] = []
    for first in range(0, games, per_job):
        scheduled = tuple(
            ScheduledGame(g, tuple(names[(seat + g - 1) % k] for seat in range(k)), deal_seed(secret, g), f"g{g}")
            for g in range(first + 1, min(games, first + per_job) + 1)
        )
        jobs.append(Job(len(jobs), tuple(names), scheduled))
    return jobs
