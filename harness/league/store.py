"""The league's results store: one SQLite file in the league folder.

The main process is its only writer; a finished job is committed in one transaction
(every game of it, with its seats, faults and replay path), so a job is either fully
recorded or not at all. Readers (``ratings`` while a league runs) open it read-only;
WAL mode lets them read while the league writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.league.reader import SeatSums, read_results
from harness.league.schedule import Job
from harness.ratings.columns import Results

DB_NAME = "league.db"
LOCK_NAME = "league.lock"
SCHEMA_VERSION = 2  # 2: each game's own statistics in seat_stats (1: a column of seats)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY, folder TEXT NOT NULL, digest TEXT NOT NULL, version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    job_id INTEGER PRIMARY KEY, bots TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    game_id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL, cluster TEXT NOT NULL,
    seed INTEGER NOT NULL, seating TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    game_id INTEGER PRIMARY KEY REFERENCES games(game_id),
    rounds INTEGER NOT NULL, moves INTEGER NOT NULL, adjudicated INTEGER NOT NULL,
    replay TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL, seat INTEGER NOT NULL, bot TEXT NOT NULL,
    score INTEGER NOT NULL, place INTEGER NOT NULL, forfeited INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS seat_stats (
    game_id INTEGER NOT NULL, seat INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL,
    PRIMARY KEY (game_id, seat, name)
);
CREATE TABLE IF NOT EXISTS faults (
    game_id INTEGER NOT NULL, seat INTEGER NOT NULL, bot TEXT NOT NULL,
    kind TEXT NOT NULL, detail TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class FaultRow:
    seat: int
    bot: str
    kind: str
    detail: str


@dataclass(frozen=True)
class GameRow:
    """One finished game as the worker reports it (picklable) and the store keeps it."""

    game_id: int
    players: tuple[str, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    forfeited: tuple[bool, ...]
    stats: tuple[dict[str, float], ...]  # by seat: the game's own statistics (Game.statistics)
    rounds: int
    moves: int
    adjudicated: bool
    replay: str  # relative to the league folder
    faults: tuple[FaultRow, ...] = field(default=())


@dataclass(frozen=True)
class StoredGame:
    """A finished game read back for the standings."""

    game_id: int
    cluster: str
    players: tuple[str, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    forfeited: tuple[bool, ...]
    stats: tuple[dict[str, float], ...]
    rounds: int


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the league folder's lock; raise HarnessError if another league process holds it.

    The kernel drops the lock when its holder dies, even by ``kill -9``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_NAME, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            raise HarnessError(
                f"{folder}: another league process (pid {holder}) is running in this folder"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        yield


def _damaged(path: Path, err: sqlite3.Error) -> HarnessError:
    return HarnessError(
        f"{path}: not a readable league database ({err}); "
        "--force moves it aside (as league.db.damaged) and starts the league over"
    )


class Store:
    """The league database. Raises HarnessError when the file is damaged."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        try:
            if readonly:
                # a URI: quote the path (a '#', '?' or '%' in it would cut it short)
                self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            else:
                self.db = sqlite3.connect(path)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(_SCHEMA)
                _migrate(self.db)
            self.db.execute("SELECT count(*) FROM meta").fetchone()
            if readonly and _old_seats(self.db):
                raise HarnessError(
                    f"{path}: made by an older llama-harness (results schema 1); run the league "
                    "command on its folder once to update it, or --force to start over"
                )
        except sqlite3.Error as err:
            raise _damaged(path, err) from None

    @classmethod
    def open_league(cls, folder: Path) -> Store:
        """Open the store of an existing league folder read-only; raise HarnessError if none."""
        path = folder / DB_NAME
        if not path.is_file():
            raise HarnessError(f"{folder}: not a league folder (no {DB_NAME})")
        return cls(path, readonly=True)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    # -- the league's identity -------------------------------------------------------

    def meta(self, key: str) -> Any:
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        if not rows:
            return None
        try:
            return json.loads(rows[0][0])
        except (TypeError, ValueError):
            raise _damaged(self.path, sqlite3.DatabaseError(f"meta {key!r} is not JSON")) from None

    def set_meta(self, key: str, value: Any) -> None:
        """Record ``value`` (JSON) under ``key`` (a league run until decided keeps its decisions)."""
        try:
            with self.db:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    def bot_digests(self) -> dict[str, str]:
        return dict(self._query("SELECT name, digest FROM bots"))

    def is_new(self) -> bool:
        return self.meta("identity") is None

    def create(
        self,
        identity: dict[str, Any],
        config: dict[str, Any],
        bots: Sequence[tuple[str, str, str, str]],
        jobs: Iterable[Job],
        secret: str = "",
    ) -> None:
        """Record the config, the bots (name, folder, digest, version) and the whole schedule (streamed)."""
        try:
            with self.db:
                self.db.execute("DELETE FROM meta")
                for table in ("bots", "jobs", "games", "results", "seats", "seat_stats", "faults"):
                    self.db.execute(f"DELETE FROM {table}")
                self.db.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [
                        ("schema", json.dumps(SCHEMA_VERSION)),
                        ("identity", json.dumps(identity, sort_keys=True)),
                        ("config", json.dumps(config, sort_keys=True)),
                        # every deal is hashed from it: a resume deals the same games
                        ("secret", json.dumps(secret)),
                    ],
                )
                self.db.executemany("INSERT INTO bots VALUES (?, ?, ?, ?)", bots)
                self._insert_jobs(jobs)
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    def _insert_jobs(self, jobs: Iterable[Job]) -> None:
        for job in jobs:
            self.db.execute("INSERT INTO jobs (job_id, bots) VALUES (?, ?)", (job.job_id, json.dumps(job.bots)))
            self.db.executemany(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?)",
                [(g.game_id, job.job_id, g.cluster, g.seed, json.dumps(g.seating)) for g in job.games],
            )

    def add_jobs(self, jobs: Iterable[Job]) -> None:
        """Schedule more jobs (a league that stops when decided schedules as it goes)."""
        try:
            with self.db:
                self._insert_jobs(jobs)
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    # -- progress --------------------------------------------------------------------

    def done_jobs(self) -> set[int]:
        return {row[0] for row in self._query("SELECT job_id FROM jobs WHERE done = 1")}

    def pending_jobs(self) -> int:
        return int(self._query("SELECT count(*) FROM jobs WHERE done = 0")[0][0])

    def counts(self) -> tuple[int, int]:
        """(finished games, scheduled games)."""
        done = self._query("SELECT count(*) FROM results")[0][0]
        total = self._query("SELECT count(*) FROM games")[0][0]
        return int(done), int(total)

    def commit_job(self, job_id: int, games: Sequence[GameRow]) -> bool:
        """Record every game of a finished job in one transaction; False if it was already done."""
        try:
            with self.db:
                row = self.db.execute("SELECT done FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
                if row is None or row[0]:
                    return False
                for game in games:
                    self.db.execute(
                        "INSERT INTO results VALUES (?, ?, ?, ?, ?)",
                        (game.game_id, game.rounds, game.moves, int(game.adjudicated), game.replay),
                    )
                    self.db.executemany(
                        "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            (game.game_id, seat, *cells)
                            for seat, cells in enumerate(
                                zip(
                                    game.players,
                                    game.scores,
                                    game.places,
                                    (int(f) for f in game.forfeited),
                                    strict=True,
                                )
                            )
                        ],
                    )
                    self.db.executemany(
                        "INSERT INTO seat_stats VALUES (?, ?, ?, ?)",
                        [
                            (game.game_id, seat, name, value)
                            for seat, stats in enumerate(game.stats)
                            for name, value in stats.items()
                        ],
                    )
                    self.db.executemany(
                        "INSERT INTO faults VALUES (?, ?, ?, ?, ?)",
                        [(game.game_id, f.seat, f.bot, f.kind, f.detail) for f in game.faults],
                    )
                self.db.execute("UPDATE jobs SET done = 1 WHERE job_id = ?", (job_id,))
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None
        return True

    # -- reading results -------------------------------------------------------------

    def games(self) -> Iterator[StoredGame]:
        """Finished games in game-id order (so ratings do not depend on completion order)."""
        sql = (
            "SELECT g.game_id, g.cluster, r.rounds, s.seat, s.bot, s.score, s.place, "
            "(SELECT json_group_object(t.name, t.value) FROM seat_stats t "
            "WHERE t.game_id = s.game_id AND t.seat = s.seat), s.forfeited "
            "FROM results r JOIN games g ON g.game_id = r.game_id "
            "JOIN seats s ON s.game_id = r.game_id ORDER BY g.game_id, s.seat"
        )
        try:
            cursor = self.db.execute(sql)
            current: list[Any] = []
            for row in cursor:
                if current and row[0] != current[0][0]:
                    yield _stored(current)
                    current = []
                current.append(row)
            if current:
                yield _stored(current)
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    def results(self) -> tuple[Results, SeatSums]:
        """Every finished game as columns (game-id order), and the per-bot score sums."""
        try:
            return read_results(self.path, self.bots())
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None
        except ValueError as err:
            raise _damaged(self.path, sqlite3.DatabaseError(str(err))) from None

    def faults(self) -> list[dict[str, Any]]:
        rows = self._query(
            "SELECT f.game_id, f.bot, f.seat, f.kind, f.detail, r.replay FROM faults f "
            "JOIN results r ON r.game_id = f.game_id ORDER BY f.game_id, f.seat"
        )
        return [
            {"game": g, "bot": bot, "seat": seat, "kind": kind, "detail": detail, "replay": replay}
            for g, bot, seat, kind, detail, replay in rows
        ]

    def fault_counts(self) -> dict[str, int]:
        return dict(self._query("SELECT bot, count(*) FROM faults GROUP BY bot"))

    def bots(self) -> list[str]:
        return [row[0] for row in self._query("SELECT name FROM bots ORDER BY name")]


_NEUTRAL = ("game_id", "seat", "bot", "score", "place", "forfeited")


def _old_seats(db: sqlite3.Connection) -> list[str]:
    """The columns of a schema-1 seats table that held one statistic of the game each."""
    return [row[1] for row in db.execute("PRAGMA table_info(seats)") if row[1] not in _NEUTRAL]


def _migrate(db: sqlite3.Connection) -> None:
    """Schema 1 → 2 in one transaction: each statistic column of ``seats`` moves into ``seat_stats``."""
    old = _old_seats(db)
    if not old:
        return
    with db:
        for name in old:  # names read from the table itself
            db.execute(f'INSERT INTO seat_stats SELECT game_id, seat, ?, "{name}" FROM seats', (name,))
            db.execute(f'ALTER TABLE seats DROP COLUMN "{name}"')
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (json.dumps(SCHEMA_VERSION),))


def _stored(rows: list[Any]) -> StoredGame:
    return StoredGame(
        game_id=rows[0][0],
        cluster=rows[0][1],
        rounds=rows[0][2],
        players=tuple(r[4] for r in rows),
        scores=tuple(r[5] for r in rows),
        places=tuple(r[6] for r in rows),
        stats=tuple(json.loads(r[7] or "{}") for r in rows),
        forfeited=tuple(bool(r[8]) for r in rows),
    )
