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
                (3,) * n,
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
