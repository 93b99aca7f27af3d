"""The results store (one transaction per job, idempotent) and the progress display."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.league.progress import Progress
from harness.league.schedule import make_schedule
from harness.league.store import DB_NAME, FaultRow, GameRow, Store, locked


def rows_for(job, fault: bool = False) -> list[GameRow]:  # type: ignore[no-untyped-def]
    rows = []
    for game in job.games:
        n = len(game.seating)
        rows.append(
            GameRow(
                game.game_id,
                game.seating,
                tuple(range(n)),
                tuple(range(1, n + 1)),
                (False,) * n,
                ({"penalty": 3},) * n,
                2,
                20,
                False,
                f"replays/game-{game.game_id}.jsonl",
                (FaultRow(0, game.seating[0], "timeout", "slow"),) if fault else (),
            )
        )
    return rows


def test_a_job_is_committed_once_with_all_its_games(tmp_path: Path) -> None:
    jobs = make_schedule(["a", "b", "c"], 3, 12, seed=0, duplicate=False)  # 2 jobs of 6
    with Store(tmp_path / DB_NAME) as store:
        store.create({"x": 1}, {"x": 1}, [(n, "-", "-", "1") for n in "abc"], jobs)
        assert store.counts() == (0, 12)
        assert store.commit_job(0, rows_for(jobs[0], fault=True))
        assert not store.commit_job(0, rows_for(jobs[0]))  # a second report of a job is ignored
        assert store.counts() == (6, 12) and store.done_jobs() == {0}
        with pytest.raises(HarnessError):  # a broken job (a game twice) is rolled back entirely
            store.commit_job(1, rows_for(jobs[1]) + rows_for(jobs[1])[:1])
        assert store.counts() == (6, 12) and store.done_jobs() == {0}
        games = list(store.games())
        assert [g.game_id for g in games] == list(range(1, 7))
        assert store.fault_counts() == dict(Counter(g.players[0] for g in games))
        assert len(store.faults()) == 6


def test_the_folder_lock_refuses_a_second_league(tmp_path: Path) -> None:
    with locked(tmp_path), pytest.raises(HarnessError, match="another league process"), locked(tmp_path):
        pass
    with locked(tmp_path):  # released
        pass


def test_progress_on_a_terminal_rewrites_one_line(tmp_path: Path) -> None:
    jobs = make_schedule(["a", "b", "c"], 3, 12, seed=0, duplicate=False)  # 2 jobs of 6
    stream = io.StringIO()
    now = [0.0]
    progress = Progress(stream, 12, 0, tty=True, clock=lambda: now[0])
    for job in jobs:
        now[0] += 1.0
        progress.update(rows_for(job))
    progress.finish()
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n") and text.count("\r") == 2
    assert "12/12 games · 6.0 games/s · ETA 0:00 · top (win share):" in text


def test_progress_without_a_terminal_prints_at_each_tenth_or_every_five_seconds() -> None:
    jobs = make_schedule(["a", "b", "c"], 3, 600, seed=0, duplicate=False)  # 100 jobs of 6
    stream = io.StringIO()
    now = [0.0]
    progress = Progress(stream, 600, 0, tty=False, clock=lambda: now[0])
    for job in jobs:
        now[0] += 0.01
        progress.update(rows_for(job))
    lines = stream.getvalue().splitlines()
    assert 9 <= len(lines) <= 11 and lines[-1].startswith("600/600 games")
    assert "\r" not in stream.getvalue()


def _schema_one(path: Path) -> None:
    """A league database as llama-harness wrote it before statistics were per game (one finished game)."""
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE bots (name TEXT PRIMARY KEY, folder TEXT NOT NULL, digest TEXT NOT NULL, version TEXT NOT NULL);
        CREATE TABLE jobs (job_id INTEGER PRIMARY KEY, bots TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE games (game_id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL, cluster TEXT NOT NULL,
            seed INTEGER NOT NULL, seating TEXT NOT NULL);
        CREATE TABLE results (game_id INTEGER PRIMARY KEY REFERENCES games(game_id),
            rounds INTEGER NOT NULL, moves INTEGER NOT NULL, adjudicated INTEGER NOT NULL, replay TEXT NOT NULL);
        CREATE TABLE seats (game_id INTEGER NOT NULL, seat INTEGER NOT NULL, bot TEXT NOT NULL,
            score INTEGER NOT NULL, place INTEGER NOT NULL, forfeited INTEGER NOT NULL,
            penalty INTEGER NOT NULL, PRIMARY KEY (game_id, seat));
        CREATE TABLE faults (game_id INTEGER NOT NULL, seat INTEGER NOT NULL, bot TEXT NOT NULL,
            kind TEXT NOT NULL, detail TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1'), ('identity', '{"x": 1}'), ('config', '{"x": 1}');
        INSERT INTO bots VALUES ('a', '-', '-', '1'), ('b', '-', '-', '1');
        INSERT INTO jobs VALUES (0, '["a", "b"]', 1);
        INSERT INTO games VALUES (1, 0, 'c', 5, '["a", "b"]');
        INSERT INTO results VALUES (1, 3, 40, 0, 'replays/game-1.jsonl');
        INSERT INTO seats VALUES (1, 0, 'a', 12, 1, 0, 30), (1, 1, 'b', 41, 2, 0, 44);
        """
    )
    db.commit()
    db.close()


def test_an_old_database_is_refused_read_only_and_migrated_by_the_league(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    _schema_one(path)
    with pytest.raises(HarnessError, match=r"older llama-harness.*run the league command"):
        Store.open_league(tmp_path)
    with Store(path) as store:  # the league opens it writable: schema 1 becomes 2, nothing is lost
        (game,) = store.games()
        assert game.stats == ({"penalty": 30}, {"penalty": 44}) and game.scores == (12, 41)
        assert store.meta("schema") == 2
    with Store.open_league(tmp_path) as store:
        assert [g.stats for g in store.games()] == [({"penalty": 30}, {"penalty": 44})]
