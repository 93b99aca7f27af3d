"""The schedule: balanced tables and seats, duplicate deal groups, determinism."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from harness.league.schedule import GROUPS_PER_JOB, duplicate_seatings, group_size, make_schedule


def names(n: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(n)]


def tally(jobs):  # type: ignore[no-untyped-def]
    """Tables played (one per deal group, or per game without duplicates), pairs met, seats."""
    played: Counter[str] = Counter()
    met: Counter[tuple[str, str]] = Counter()
    seats: Counter[tuple[str, int]] = Counter()
    tables: dict[str, tuple[str, ...]] = {}
    for job in jobs:
        for game in job.games:
            tables[game.cluster] = tuple(sorted(game.seating))
            for seat, bot in enumerate(game.seating):
                seats[(bot, seat)] += 1
    for table in tables.values():
        played.update(table)
        met.update(itertools.combinations(table, 2))
    return played, met, seats


@pytest.mark.parametrize(
    ("n", "k", "games"),
    [(5, 4, 400), (7, 3, 500), (12, 4, 1000), (30, 4, 3000), (9, 4, 616), (25, 6, 3000), (6, 2, 300)],
)
def test_every_bot_plays_meets_and_sits_about_equally(n: int, k: int, games: int) -> None:
    jobs = make_schedule(names(n), k, games, seed=1)
    played, met, seats = tally(jobs)
    size = group_size(k)
    clusters = Counter(game.cluster for job in jobs for game in job.games)
    assert set(clusters.values()) == {size}  # whole deal groups
    assert sum(clusters.values()) == len(clusters) * size >= games
    # tables: every bot within one table of every other
    assert max(played.values()) - min(played.values()) <= 1
    assert set(played) == set(names(n))
    # pairs: every pair meets, within 3 tables of each other (greedy balance, stated tolerance)
    pairs = [met[pair] for pair in itertools.combinations(names(n), 2)]
    assert min(pairs) >= 1
    assert max(pairs) - min(pairs) <= 3
    # seats: within a deal group every bot sits in every seat equally often
    for bot in names(n):
        counts = {seats[(bot, seat)] for seat in range(k)}
        assert len(counts) == 1, (bot, counts)


def test_few_combinations_are_played_exhaustively() -> None:
    jobs = make_schedule(names(5), 4, 10 * 8, seed=3)  # C(5,4) = 5 tables, twice
    tables = Counter(tuple(sorted(game.seating)) for job in jobs for game in job.games)
    assert len(tables) == 5 and set(tables.values()) == {2 * 8}


def test_schedule_is_a_pure_function_of_its_inputs() -> None:
    first = make_schedule(names(8), 4, 400, seed=7)
    assert first == make_schedule(list(reversed(names(8))), 4, 400, seed=7)
    assert first != make_schedule(names(8), 4, 400, seed=8)


def test_duplicate_group_rotates_both_directions_and_shares_one_deal() -> None:
    seatings = duplicate_seatings(["a", "b", "c", "d"])
    assert len(seatings) == 8 == len(set(seatings))
    assert ("a", "b", "c", "d") in seatings and ("d", "c", "b", "a") in seatings
    # every bot holds every seat (hand) twice, and every ordered neighbour pair occurs
    for seat in range(4):
        assert Counter(s[seat] for s in seatings) == Counter("abcd") + Counter("abcd")
    assert duplicate_seatings(["a", "b"]) == [("a", "b"), ("b", "a")]  # k=2: no duplicates
    games = [game for job in make_schedule(names(4), 4, 8, seed=0) for game in job.games]
    assert len(games) == 8
    assert len({game.seed for game in games}) == 1
    assert len({game.cluster for game in games}) == 1
    ids = sorted(game.game_id for job in make_schedule(names(4), 4, 40, seed=0) for game in job.games)
    assert ids == list(range(1, 41))


@pytest.mark.parametrize(("n", "k", "games"), [(4, 4, 400), (5, 4, 1000), (12, 4, 1000), (3, 2, 50)])
def test_no_job_sees_one_deal_twice(n: int, k: int, games: int) -> None:
    """A bot process lives for a job: two games of one deal would show it the other hands."""
    jobs = make_schedule(names(n), k, games, seed=5)
    for job in jobs:
        deals = [game.seed for game in job.games]
        assert len(deals) == len(set(deals)), job
        assert all(tuple(sorted(game.seating)) == job.bots for game in job.games)
        assert 1 <= len(job.games) <= GROUPS_PER_JOB
    # and every deal group is complete, spread over group_size(k) jobs
    spread: dict[str, set[int]] = {}
    for job in jobs:
        for game in job.games:
            spread.setdefault(game.cluster, set()).add(job.job_id)
    assert {len(ids) for ids in spread.values()} == {group_size(k)}


def test_without_duplicates_every_game_has_its_own_deal_and_cluster() -> None:
    jobs = make_schedule(names(5), 3, 90, seed=2, duplicate=False)
    games = [game for job in jobs for game in job.games]
    assert len(games) >= 90
    assert len({game.seed for game in games}) == len(games)
    assert len({game.cluster for game in games}) == len(games)
    _, _, seats = tally(jobs)
    for bot in names(5):
        assert len({seats[(bot, seat)] for seat in range(3)}) == 1


def test_table_size_must_fit() -> None:
    with pytest.raises(ValueError, match="table size 5"):
        make_schedule(names(4), 5, 10, seed=0)
