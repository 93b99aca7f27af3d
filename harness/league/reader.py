"""Reading a league's results as numpy columns, fast enough for a million games.

SQLite builds one string per chunk of games (``group_concat``: bot, place, forfeit and
seat packed into one integer a seat), which numpy parses at once; the score sums are
added up per bot in SQL. Two threads read alternate chunks on their own connections
(SQLite releases the GIL), each chunk in one read transaction so that its seats and
games agree while a league is writing. A million games of four take a few seconds
and a few tens of MB, where rows as Python objects took a minute and gigabytes.
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness.ratings.columns import Results

# Games per read (bounds the text SQLite builds); threads reading at once.
READ_GAMES = 100_000
READERS = 2
# Up to this many bots the bot name -> index map is a CASE expression, else a join.
CASE_BOTS = 32


@dataclass(frozen=True)
class SeatSums:
    """Per bot: the sums of final scores and of the game's own statistics; per game: rounds played."""

    score: dict[str, int]
    stats: dict[str, dict[str, float]]  # bot -> statistic (Game.statistics) -> sum
    rounds: Any  # numpy int64 array


@dataclass(frozen=True)
class _Chunk:
    packed: Any
    sums: list[tuple[str, int]]
    stats: list[tuple[str, str, float]]
    clusters: list[str]
    rounds: Any


class _Queries:
    def __init__(self, names: list[str]) -> None:
        if len(names) <= CASE_BOTS:
            code = "CASE bot " + " ".join(f"WHEN ? THEN {i}" for i in range(len(names))) + " ELSE -1 END"
            source, self.args = f"SELECT {code} AS code, * FROM seats", list(names)
        else:
            source = (
                "SELECT coalesce(b.code, -1) AS code, s.* FROM seats s LEFT JOIN "
                "(SELECT name, row_number() OVER (ORDER BY name) - 1 AS code FROM bots) b ON b.name = s.bot"
            )
            self.args = []
        self.seats = (
            "SELECT group_concat(((code * 8 + place) * 2 + forfeited) * 8 + seat, ' ') "
            f"FROM ({source} WHERE game_id BETWEEN ? AND ? ORDER BY game_id, seat)"
        )
        self.sums = "SELECT bot, sum(score) FROM seats WHERE game_id BETWEEN ? AND ? GROUP BY bot"
        self.stats = (
            "SELECT s.bot, t.name, sum(t.value) FROM seat_stats t JOIN seats s "
            "ON s.game_id = t.game_id AND s.seat = t.seat WHERE t.game_id BETWEEN ? AND ? GROUP BY s.bot, t.name"
        )
        self.games = (
            "SELECT group_concat(g.cluster, char(31)), group_concat(r.rounds, ' ') FROM "
            "(SELECT game_id, rounds FROM results WHERE game_id BETWEEN ? AND ? ORDER BY game_id) r "
            "JOIN games g ON g.game_id = r.game_id"
        )


def _read(uri: str, queries: _Queries, ranges: list[tuple[int, int]]) -> list[_Chunk]:
    """Read ``ranges`` of game ids on one connection, each in one read transaction."""
    db = sqlite3.connect(uri, uri=True, isolation_level=None)
    out = []
    try:
        for low, high in ranges:
            db.execute("BEGIN")
            packed = db.execute(queries.seats, [*queries.args, low, high]).fetchone()[0] or ""
            sums = db.execute(queries.sums, (low, high)).fetchall()
            stats = db.execute(queries.stats, (low, high)).fetchall()
            clusters, rounds = db.execute(queries.games, (low, high)).fetchone()
            db.execute("COMMIT")
            out.append(
                _Chunk(
                    packed=np.fromstring(packed, dtype=np.int64, sep=" "),
                    sums=sums,
                    stats=stats,
                    clusters=clusters.split("\x1f") if clusters else [],
                    rounds=np.fromstring(rounds or "", dtype=np.int64, sep=" "),
                )
            )
    finally:
        db.close()
    return out


def read_results(path: Path, names: list[str]) -> tuple[Results, SeatSums]:
    """The finished games of the league database at ``path`` as columns, in game-id order.

    Raises sqlite3.Error for an unreadable database and ValueError when its tables
    disagree (a seat of a bot the league does not have, seats without a result).
    """
    uri = f"{path.resolve().as_uri()}?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    try:
        last = db.execute("SELECT max(game_id) FROM results").fetchone()[0] or 0
    finally:
        db.close()
    if not isinstance(last, int):  # a damaged database: a game id that is not a number
        raise ValueError(f"results.game_id holds {last!r}, not a game number")
    queries = _Queries(names)
    ranges = [(low, low + READ_GAMES - 1) for low in range(0, last + 1, READ_GAMES)]
    shares = [ranges[i::READERS] for i in range(READERS)]
    with ThreadPoolExecutor(READERS) as pool:
        parts = list(pool.map(lambda share: _read(uri, queries, share), shares))
    chunks = [parts[i % READERS][i // READERS] for i in range(len(ranges))]
    score = dict.fromkeys(names, 0)
    stats: dict[str, dict[str, float]] = {name: {} for name in names}
    clusters: list[str] = []
    for chunk in chunks:
        for name, scores in chunk.sums:
            if name not in score:
                raise ValueError(f"a seat names bot {name!r}, which the league does not have")
            score[name] += scores
        for name, stat, total in chunk.stats:
            if name in stats:
                stats[name][stat] = stats[name].get(stat, 0.0) + total
        clusters += chunk.clusters
    cells = np.concatenate([chunk.packed for chunk in chunks]) if chunks else np.zeros(0, np.int64)
    rounds = np.concatenate([chunk.rounds for chunk in chunks]) if chunks else np.zeros(0, np.int64)
    del chunks, parts
    rest, seat = np.divmod(cells, 8)
    rest, forfeited = np.divmod(rest, 2)
    code, place = np.divmod(rest, 8)
    starts = np.flatnonzero(seat == 0)
    if len(starts) != len(clusters) or len(rounds) != len(clusters):
        raise ValueError("the results and the seats tables disagree")
    index: dict[str, int] = {}
    cluster = np.fromiter((index.setdefault(c, len(index)) for c in clusters), np.int32, len(clusters))
    columns = Results(
        names=tuple(names),
        offsets=np.append(starts, len(code)).astype(np.int64),
        bot=code.astype(np.int32),
        place=place.astype(np.int32),
        forfeited=forfeited.astype(np.int32),
        cluster=cluster,
        clusters=len(index),
    )
    return columns, SeatSums(score=score, stats=stats, rounds=rounds)
