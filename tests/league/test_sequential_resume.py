"""A league run until decided and an SPRT match resume after an interruption, even a crash."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import bot_processes, scaled

from league.conftest import cli, db_rows
from league.test_interrupts import start, wait_for_jobs

FAST = ("--sandbox", "none", "--jobs", "2")


def interrupt(args: list[str | Path], out: Path, temps: Path, signum: signal.Signals) -> tuple[int, str, str]:
    """Start the command, let it record a few jobs, send ``signum`` to its whole process group.

    Returns its exit status, stdout and stderr.
    """
    proc = start(args, temps)
    try:
        wait_for_jobs(proc, out, 3)
        os.killpg(proc.pid, signum)
        stdout, stderr = proc.communicate(timeout=scaled(60))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, stdout, stderr


def recorded(out: Path) -> tuple[int, int, int]:
    """(games recorded, games scheduled, jobs not done)."""
    row = db_rows(
        out,
        "SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM games), "
        "(SELECT count(*) FROM jobs WHERE done = 0)",
    )[0]
    return int(row[0]), int(row[1]), int(row[2])


@pytest.mark.slow
def test_a_league_until_decided_resumes_after_a_crash(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])  # identical bots: the league plays to its budget, undecided
    out, temps = tmp_path / "out", tmp_path / "tmp"
    temps.mkdir()
    args: list[str | Path] = [
        "league", folder, "--until-decided", "--games", "400", "--confidence", "0.999", "--seed", "3", *FAST,
    ]
    status, _, _ = interrupt([*args, "--out", out], out, temps, signal.SIGKILL)  # everything dies at once
    assert status == -signal.SIGKILL
    before, scheduled, unfinished = recorded(out)
    assert 0 < before < 400 and unfinished > 0 and scheduled <= 400
    done = cli(*args, "--out", out, timeout=300)
    assert f"{before} already played" in done.stderr, done.stderr
    assert "not decided within --games" in done.stderr and "Traceback" not in done.stderr
    after, scheduled, unfinished = recorded(out)
    assert (after, scheduled, unfinished) == (400, 400, 0)  # the budget, every game once
    assert db_rows(out, "SELECT count(DISTINCT game_id) FROM results")[0][0] == 400
    # every deal group whole: each of its games (the two seatings) recorded
    groups = db_rows(out, "SELECT g.cluster, count(*) FROM results r JOIN games g USING (game_id) GROUP BY g.cluster")
    assert len(groups) == 200 and {count for _, count in groups} == {2}
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    assert data["decisions"]["done"] is False and data["games"] == 400
    assert not bot_processes(folder)


@pytest.mark.slow
def test_an_sprt_match_stops_on_ctrl_c_and_resumes(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    out, temps = tmp_path / "out", tmp_path / "tmp"
    temps.mkdir()
    # identical bots, bounds around 0: the test does not decide within the budget
    args: list[str | Path] = ["match", folder / "a", folder / "b", "--sprt", "-20,20", "--games", "300", *FAST]
    status, stdout, stderr = interrupt([*args, "--out", out], out, temps, signal.SIGINT)
    assert status == 130, stderr
    before, scheduled, unfinished = recorded(out)
    assert 0 < before < 300
    assert f"sprt match interrupted by SIGINT: {before} of {scheduled} games recorded" in stderr
    assert "run the same command to resume" in stderr and "Traceback" not in stderr, stderr
    assert "Elo ratings" in stdout  # the standings so far
    assert list(temps.iterdir()) == []  # no bot temp folder, no pymp-* folder
    assert not bot_processes(folder)
    done = cli(*args, "--out", out, timeout=300)
    assert f"resumed, {before} games already played" in done.stderr, done.stderr
    summary = json.loads((out / "summary.json").read_text())["sprt"]
    after, scheduled, unfinished = recorded(out)
    assert unfinished == 0 and after == scheduled == summary["games_played"]
    assert summary["games"] <= after <= 300
