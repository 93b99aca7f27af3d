"""The league's results store: one SQLite file in the league folder.

The main process is its only writer; a finished job is committed in one transaction
(every game of it, with its seats, faults and replay path), so a job is either fully
recorded or not at all. Readers (``ratings`` while a league runs) open it read-only;
WAL mode lets them read while the league writes.

The database holds the league's secret (every deal and bot seed is hashed from it):
it and its ``-wal`` and ``-shm`` files are readable by their owner only (SQLite gives
the two the database file's mode when it creates them).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.league.reader import SeatSums, read_results
from harness.league.schedule import Job, ScheduledGame
from harness.ratings.columns import Results
from harness.seeds import is_kept_secret
from harness.timing import Timing

DB_NAME = "league.db"
LOCK_NAME = "league.lock"
SCHEMA_VERSION = 2  # 2: each game's own statistics in seat_stats (1: a column of seats)
PRIVATE = 0o600  # the mode of every file holding the secret

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
CREATE TABLE IF NOT EXISTS timing (
    job_id INTEGER NOT NULL, bot TEXT NOT NULL, moves INTEGER NOT NULL, timeouts INTEGER NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (job_id, bot)
);
CREATE TABLE IF NOT EXISTS revisions (
    revision INTEGER PRIMARY KEY, bots TEXT NOT NULL, games INTEGER NOT NULL,
    first_job INTEGER NOT NULL, change TEXT NOT NULL, at TEXT NOT NULL
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


def _disk_full(path: Path, err: sqlite3.Error) -> bool:
    """True when ``err`` comes from a full disk (SQLITE_FULL, or an I/O error with no space left)."""
    code = getattr(err, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "disk is full" in str(err):
        return True
    if code is not None and code & 0xFF == sqlite3.SQLITE_IOERR:
        with contextlib.suppress(OSError):
            return shutil.disk_usage(path.parent).free < 1 << 20
    return False


def _damaged(path: Path, err: sqlite3.Error) -> HarnessError:
    if _disk_full(path, err):  # the database is fine: the write did not happen
        return HarnessError(
            f"{path}: the disk is full ({err}); nothing recorded was lost: free some space "
            "and run the same command again to resume"
        )
    return HarnessError(
        f"{path}: not a readable league database ({err}); "
        "--force moves it aside (as league.db.damaged) and starts the league over"
    )


def private(path: Path) -> None:
    """Create ``path`` (and tighten it and its ``-wal``/``-shm``) readable by its owner only.

    Created 0600 before SQLite opens it: SQLite creates the ``-wal`` and ``-shm`` with
    the database's mode, so no file holding the secret is readable by another user at
    any moment. A database of an older harness (0644) is tightened here. Raises OSError.
    """
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE))
    for suffix in ("", "-wal", "-shm"):
        # another user's database (opened through a group's write access) keeps its mode
        with contextlib.suppress(FileNotFoundError, PermissionError):
            kept = path.with_name(path.name + suffix)
            if kept.stat().st_mode & 0o077:
                kept.chmod(PRIVATE)


class Store:
    """The league database. Raises HarnessError when the file is damaged."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.revised: str | None = None  # what extend() changed in this run
        try:
            if readonly:
                # a URI: quote the path (a '#', '?' or '%' in it would cut it short)
                self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            else:
                private(path)
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
        except OSError as err:
            raise HarnessError(f"{path}: cannot open the league database ({err.strerror})") from None

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

    def damaged(self, why: str) -> HarnessError:
        """The one-line error for this database when its tables disagree (``why``)."""
        return _damaged(self.path, sqlite3.DatabaseError(why))

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

    def secret_problem(self) -> str | None:
        """Why the stored secret cannot deal this league's games (missing, empty, malformed), or None."""
        value = self.meta("secret")
        if isinstance(value, str) and is_kept_secret(value):
            return None
        what = "missing" if value is None else "empty" if value == "" else "not a secret the harness writes"
        # a resume would deal from it: with '' every deal and bot seed would be public
        return f"holds no secret for its deals (its secret is {what})"

    def secret(self) -> str:
        """The league's secret, which every deal and bot seed is hashed from.

        Raises HarnessError when the database holds none (never dealt from ``''``).
        """
        problem = self.secret_problem()
        if problem is not None:
            raise HarnessError(f"{self.path}: {problem}; use another --out, or --force to start over")
        return str(self.meta("secret"))

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
                for table in ("bots", "jobs", "games", "results", "seats", "seat_stats", "faults", "revisions", "timing"):
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
                self._revision(0, identity, 0, "league started")
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    def _insert_jobs(self, jobs: Iterable[Job]) -> None:
        for job in jobs:  # streamed: a schedule is made lazily
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

    def _revision(self, number: int, identity: dict[str, Any], first_job: int, change: str) -> None:
        self.db.execute(
            "INSERT INTO revisions VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
            (number, json.dumps(identity.get("bots", [])), int(identity.get("games", 0)), first_job, change),
        )

    def revisions(self) -> list[dict[str, Any]]:
        """The league's revisions, oldest first: the bots and game target each one set, and why."""
        exists = self._query("SELECT count(*) FROM sqlite_master WHERE name = 'revisions'")[0][0]
        rows = self._query("SELECT revision, bots, games, first_job, change, at FROM revisions ORDER BY revision") if exists else []
        if not rows and not self.is_new():  # a league stored before revisions were recorded
            identity = self.meta("identity") or {}
            bots, games = identity.get("bots", []), identity.get("games", 0)
            return [{"revision": 0, "bots": bots, "games": games, "first_job": 0, "change": "league started", "at": None}]
        return [
            {"revision": r, "bots": json.loads(b), "games": g, "first_job": j, "change": c, "at": at}
            for r, b, g, j, c, at in rows
        ]

    def extend(
        self,
        identity: dict[str, Any],
        config: dict[str, Any],
        bots: Sequence[tuple[str, str, str, str]],
        cancel: Sequence[int],
        jobs: Sequence[Job],
        change: str,
    ) -> None:
        """Record a league revision in one transaction: new bots, cancelled unplayed jobs, new jobs.

        Finished games are never touched; ``cancel`` names unfinished jobs (of retired bots).
        """
        try:
            with self.db:
                history = self.revisions()
                if not self._query("SELECT count(*) FROM revisions")[0][0]:  # stored before revisions
                    self._revision(0, self.meta("identity") or {}, 0, "league started")
                first = jobs[0].job_id if jobs else self.last_ids()[0] + 1
                for job_id in cancel:
                    self.db.execute("DELETE FROM games WHERE job_id = ? AND game_id NOT IN "
                                    "(SELECT game_id FROM results)", (job_id,))
                    self.db.execute("DELETE FROM jobs WHERE job_id = ? AND done = 0", (job_id,))
                self.db.executemany("INSERT OR IGNORE INTO bots VALUES (?, ?, ?, ?)", bots)
                self._insert_jobs(jobs)
                self.db.executemany(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    [
                        ("identity", json.dumps(identity, sort_keys=True)),
                        ("config", json.dumps(config, sort_keys=True)),
                    ],
                )
                self._revision(history[-1]["revision"] + 1, identity, first, change)
            self.revised = change
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None

    def iter_pending(self, chunk: int = 256) -> Iterator[Job]:
        """The scheduled jobs not yet recorded as done, in job order, as stored (read in chunks)."""
        last = -1
        while True:
            heads = self._query(
                "SELECT job_id, bots FROM jobs WHERE done = 0 AND job_id > ? ORDER BY job_id LIMIT ?", (last, chunk)
            )
            if not heads:
                return
            games: dict[int, list[ScheduledGame]] = {job_id: [] for job_id, _ in heads}
            rows = self._query(
                "SELECT job_id, game_id, seating, seed, cluster FROM games WHERE job_id BETWEEN ? AND ? "
                "ORDER BY game_id",
                (heads[0][0], heads[-1][0]),
            )
            for job_id, game_id, seating, seed, cluster in rows:
                if job_id in games:
                    games[job_id].append(ScheduledGame(game_id, tuple(json.loads(seating)), seed, cluster))
            for job_id, bots in heads:
                yield Job(job_id, tuple(json.loads(bots)), tuple(games[job_id]))
            last = heads[-1][0]

    def scheduled_games(self) -> list[ScheduledGame]:
        """Every game scheduled so far, finished or not, in game order."""
        rows = self._query("SELECT game_id, seating, seed, cluster FROM games ORDER BY game_id")
        try:
            return [ScheduledGame(game_id, tuple(json.loads(seating)), seed, cluster) for game_id, seating, seed, cluster in rows]
        except (TypeError, ValueError) as err:  # a seating that is not a JSON list of names
            raise self.damaged(f"games.seating: {err}") from None

    def games_in(self, job_ids: Sequence[int]) -> int:
        """How many games the jobs ``job_ids`` hold."""
        marks = ",".join("?" * len(job_ids))
        return int(self._query(f"SELECT count(*) FROM games WHERE job_id IN ({marks})", list(job_ids))[0][0]) if job_ids else 0

    def last_ids(self) -> tuple[int, int]:
        """(the highest job id, the highest game id) scheduled so far; -1 and 0 when none."""
        job, game = self._query("SELECT (SELECT max(job_id) FROM jobs), (SELECT max(game_id) FROM games)")[0]
        if not (job is None or isinstance(job, int)) or not (game is None or isinstance(game, int)):
            raise self.damaged(f"a job id {job!r} or game id {game!r} that is not a number")
        return (-1 if job is None else job), game or 0

    def unfinished_with(self, names: set[str]) -> list[int]:
        """The unfinished jobs at which any of ``names`` sits."""
        rows = self._query("SELECT job_id, bots FROM jobs WHERE done = 0 ORDER BY job_id")
        return [job_id for job_id, bots in rows if names & set(json.loads(bots))]

    # -- progress --------------------------------------------------------------------

    def done_jobs(self) -> set[int]:
        return {row[0] for row in self._query("SELECT job_id FROM jobs WHERE done = 1")}

    def job_done(self, job_id: int) -> bool:
        """True if job ``job_id`` is recorded as done."""
        row = self._query("SELECT done FROM jobs WHERE job_id = ?", (job_id,))
        return bool(row and row[0][0])

    def pending_jobs(self) -> int:
        return int(self._query("SELECT count(*) FROM jobs WHERE done = 0")[0][0])

    def counts(self) -> tuple[int, int]:
        """(finished games, scheduled games)."""
        done = self._query("SELECT count(*) FROM results")[0][0]
        total = self._query("SELECT count(*) FROM games")[0][0]
        return int(done), int(total)

    def commit_job(
        self, job_id: int, games: Sequence[GameRow], timing: Sequence[tuple[str, Timing]] = ()
    ) -> bool:
        """Record every game of a finished job, and its bots' timing, in one transaction.

        Returns False if the job was already done.
        """
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
                self.db.executemany(
                    "INSERT INTO timing VALUES (?, ?, ?, ?, ?)",
                    [(job_id, bot, t.moves.n, t.timeouts, t.to_json()) for bot, t in timing],
                )
                self.db.execute("UPDATE jobs SET done = 1 WHERE job_id = ?", (job_id,))
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None
        return True

    def kept_of(self, game_ids: Sequence[int]) -> dict[int, list[tuple[str, int]]]:
        """The jobs holding some of ``game_ids`` that keep other recorded games: job -> (replay, game) of those."""
        wanted = set(game_ids)
        jobs = {
            job_id
            for game_id in wanted
            for (job_id,) in self._query("SELECT job_id FROM games WHERE game_id = ?", (game_id,))
        }
        kept: dict[int, list[tuple[str, int]]] = {}
        for job_id in sorted(jobs):
            rows = self._query(
                "SELECT r.replay, g.game_id FROM games g JOIN results r ON r.game_id = g.game_id "
                "WHERE g.job_id = ? ORDER BY g.game_id",
                (job_id,),
            )
            left = [(str(replay), int(game_id)) for replay, game_id in rows if game_id not in wanted]
            if left:
                kept[job_id] = left
        return kept

    def job_timing(self, job_id: int) -> dict[str, Timing]:
        """One finished job's timing, by bot."""
        return {
            bot: Timing.from_json(data)
            for bot, data in self._query("SELECT bot, data FROM timing WHERE job_id = ?", (job_id,))
        }

    def timeouts_in(self, game_ids: Sequence[int]) -> dict[str, int]:
        """Time-out faults per bot in ``game_ids``."""
        counts: dict[str, int] = {}
        for game_id in game_ids:
            for (bot,) in self._query("SELECT bot FROM faults WHERE game_id = ? AND kind = 'timeout'", (game_id,)):
                counts[bot] = counts.get(bot, 0) + 1
        return counts

    def discard_games(
        self, game_ids: Sequence[int], retimed: Mapping[int, Mapping[str, Timing]] | None = None
    ) -> list[str]:
        """Unschedule ``game_ids`` in one transaction: their results, and the jobs left without games, go.

        A run decided before these games counts none of them (harness.league.loop).
        ``retimed``: the new timing of jobs that keep some of their games (their bots'
        moves in the kept games only), written in the same transaction.
        Returns the replays (relative to the folder) of those that had results.
        """
        ids = [(game_id,) for game_id in game_ids]
        try:
            with self.db:
                for job_id, timing in (retimed or {}).items():
                    self.db.executemany(
                        "UPDATE timing SET moves = ?, timeouts = ?, data = ? WHERE job_id = ? AND bot = ?",
                        [(t.moves.n, t.timeouts, t.to_json(), job_id, bot) for bot, t in timing.items()],
                    )
                replays = [
                    row[0]
                    for (game_id,) in ids
                    for row in self.db.execute("SELECT replay FROM results WHERE game_id = ?", (game_id,))
                ]
                for table in ("results", "seats", "seat_stats", "faults", "games"):
                    self.db.executemany(f"DELETE FROM {table} WHERE game_id = ?", ids)
                empty = "SELECT job_id FROM jobs WHERE job_id NOT IN (SELECT job_id FROM games)"
                self.db.execute(f"DELETE FROM timing WHERE job_id IN ({empty})")
                self.db.execute(f"DELETE FROM jobs WHERE job_id IN ({empty})")
        except sqlite3.Error as err:
            raise _damaged(self.path, err) from None
        return replays

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

    def timing(self) -> dict[str, Timing]:
        """Each bot's timing, merged over its finished jobs."""
        exists = self._query("SELECT count(*) FROM sqlite_master WHERE name = 'timing'")[0][0]
        merged: dict[str, Timing] = {}
        for bot, data in self._query("SELECT bot, data FROM timing ORDER BY job_id, bot") if exists else []:
            try:
                merged.setdefault(bot, Timing()).merge(Timing.from_json(data))
            except (ValueError, KeyError, TypeError):
                raise _damaged(self.path, sqlite3.DatabaseError(f"timing of {bot!r} is not valid")) from None
        return merged

    def replays(self) -> list[str]:
        """The finished games' replay paths (relative to the folder), in game-id order."""
        return [row[0] for row in self._query("SELECT replay FROM results ORDER BY game_id")]

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
