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


@dataclass
class _Chunk:
    """One range of games, decoded at once: its temporaries are one chunk's, not the league's."""

    code: Any  # int32 per seat: bot index (-1: a bot the league does not have)
    place: Any  # int32 per seat
    forfeited: Any  # int32 per seat
    starts: Any  # int64: where each game's seats begin, within the chunk
    sums: Any  # int64 per bot (by index): the sum of its final scores
    stats: list[tuple[str, str, float]]
    clusters: list[str]  # the chunk's distinct clusters, in the order first met
    cluster: Any  # int32 per game: an index into ``clusters``
    rounds: Any


def _decode(packed: str) -> tuple[Any, Any, Any, Any]:
    """(bot code, place, forfeited, game starts) of one chunk's packed seats."""
    cells = np.fromstring(packed, dtype=np.int64, sep=" ")
    rest, seat = np.divmod(cells, 8)
    del cells
    rest, forfeited = np.divmod(rest, 2)
    code, place = np.divmod(rest, 8)
    return code.astype(np.int32), place.astype(np.int32), forfeited.astype(np.int32), np.flatnonzero(seat == 0)


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
        self.names = names
        # the scores ride along in the same scan (a GROUP BY bot of its own cost as much again)
        self.seats = (
            "SELECT group_concat(((code * 8 + place) * 2 + forfeited) * 8 + seat, ' '), group_concat(score, ' ') "
            f"FROM ({source} WHERE game_id BETWEEN ? AND ? ORDER BY game_id, seat)"
        )
        self.stranger = (
            "SELECT bot FROM seats WHERE game_id BETWEEN ? AND ? AND bot NOT IN (SELECT name FROM bots) LIMIT 1"
        )
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
            packed, scores = db.execute(queries.seats, [*queries.args, low, high]).fetchone()
            stats = db.execute(queries.stats, (low, high)).fetchall()
            clusters, rounds = db.execute(queries.games, (low, high)).fetchone()
            db.execute("COMMIT")
            code, place, forfeited, starts = _decode(packed or "")
            del packed
            if (code < 0).any():
                stranger = db.execute(queries.stranger, (low, high)).fetchone()
                raise ValueError(f"a seat names bot {stranger[0] if stranger else '?'!r}, which the league does not have")
            score = np.fromstring(scores or "", dtype=np.int64, sep=" ")
            if len(score) != len(code):
                raise ValueError("the seats table holds a score that is not a number")
            sums = np.bincount(code, weights=score, minlength=len(queries.names)).round().astype(np.int64)
            out.append(
                _Chunk(
                    code=code,
                    place=place,
                    forfeited=forfeited,
                    starts=starts,
                    sums=sums,
                    stats=stats,
                    **_clusters(clusters),
                    rounds=np.fromstring(rounds or "", dtype=np.int64, sep=" "),
                )
            )
    finally:
        db.close()
    return out


def _clusters(joined: str | None) -> dict[str, Any]:
    """A chunk's cluster names as distinct names and an index a game (a deal group's
    games share one: 10 million names as Python strings held ~600 MB at once)."""
    first: dict[str, int] = {}
    names = joined.split("\x1f") if joined else []
    cluster = np.fromiter((first.setdefault(name, len(first)) for name in names), np.int32, len(names))
    return {"clusters": list(first), "cluster": cluster}


def _joined(chunks: list[_Chunk], field: str, dtype: Any) -> Any:
    """One column of every chunk; the chunks' parts are dropped once copied."""
    parts = [getattr(chunk, field) for chunk in chunks]
    for chunk in chunks:
        setattr(chunk, field, None)
    out = np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)
    parts.clear()
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
    del parts
    score = dict.fromkeys(names, 0)
    stats: dict[str, dict[str, float]] = {name: {} for name in names}
    # a cluster's index in the order first met, in game-id order (so the same each run)
    index: dict[str, int] = {}
    cluster_parts: list[Any] = []
    start_parts: list[Any] = []
    seats = 0
    for chunk in chunks:
        for name, total in zip(names, chunk.sums.tolist(), strict=True):
            score[name] += total
        for name, stat, total in chunk.stats:
            if name in stats:
                stats[name][stat] = stats[name].get(stat, 0.0) + total
        if len(chunk.starts) != len(chunk.cluster) or len(chunk.rounds) != len(chunk.cluster):
            raise ValueError("the results and the seats tables disagree")
        mapping = np.fromiter((index.setdefault(c, len(index)) for c in chunk.clusters), np.int32, len(chunk.clusters))
        cluster_parts.append(mapping[chunk.cluster])
        chunk.clusters, chunk.cluster = [], None
        start_parts.append(chunk.starts + seats)
        seats += len(chunk.code)

    code = _joined(chunks, "code", np.int32)
    columns = Results(
        names=tuple(names),
        offsets=np.append(np.concatenate(start_parts) if start_parts else np.zeros(0, np.int64), seats).astype(np.int64),
        bot=code,
        place=_joined(chunks, "place", np.int32),
        forfeited=_joined(chunks, "forfeited", np.int32),
        cluster=np.concatenate(cluster_parts) if cluster_parts else np.zeros(0, np.int32),
        clusters=len(index),
    )
    rounds = _joined(chunks, "rounds", np.int64)
    return columns, SeatSums(score=score, stats=stats, rounds=rounds)
