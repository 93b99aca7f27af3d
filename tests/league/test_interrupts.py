"""Ctrl-C and SIGTERM stop a league or a match cleanly: standings so far, 130 / 143, nothing left over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import bot_processes, scaled

from league.conftest import cli, db_rows, standings

FAST = ("--sandbox", "none", "--jobs", "2")


def start(args: list[str | Path], temps: Path) -> subprocess.Popen[str]:
    """The command in its own process group (as a terminal runs it), with its own TMPDIR."""
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temps), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )


def wait_for_jobs(proc: subprocess.Popen[str], out: Path, jobs: int) -> None:
    deadline = time.monotonic() + scaled(90)
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "league.db").exists():
            try:
                if db_rows(out, "SELECT count(*) FROM jobs WHERE done = 1")[0][0] >= jobs:
                    return
            except Exception:  # the schema may not exist yet
                pass
        time.sleep(0.02)
    raise AssertionError("the run finished before it could be interrupted: make it longer")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_league_stops_cleanly_and_resumes(
    tmp_path: Path, bots: Callable[[list[str]], Path], signum: signal.Signals
) -> None:
    folder = bots(["a", "b", "c", "d", "e"])
    out, clean, temps = tmp_path / "out", tmp_path / "clean", tmp_path / "tmp"
    temps.mkdir()
    args: list[str | Path] = ["league", folder, "--games", "480", "--table-size", "3", "--seed", "1", *FAST]
    proc = start([*args, "--out", out], temps)
    try:
        wait_for_jobs(proc, out, 3)
        # Ctrl-C on a terminal reaches the whole process group; SIGTERM only the league
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=scaled(60))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    recorded, scheduled = db_rows(out, "SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM games)")[0]
    assert 0 < recorded < scheduled
    assert f"league interrupted by {signum.name}: {recorded} of {scheduled} games recorded" in stderr
    assert "Elo ratings" in stdout and f"{recorded} games" in stdout  # the standings so far
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr
    assert list(temps.iterdir()) == []  # no bot temp folder, no pymp-* folder
    assert not bot_processes(out)  # bots run from their snapshots in out/bots
    assert not list(out.rglob("*.part"))
    assert db_rows(out, "SELECT count(*) FROM jobs WHERE done = 0")[0][0] > 0
    # the same command resumes (to the standings of an uninterrupted league: once is enough)
    cli(*args, "--out", out)
    assert db_rows(out, "SELECT count(*), count(DISTINCT game_id) FROM results") == [(scheduled, scheduled)]
    if signum == signal.SIGTERM:
        cli(*args, "--out", clean)
        assert standings(out) == standings(clean)


def test_a_match_stops_cleanly_on_ctrl_c_and_resumes(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    out, temps = tmp_path / "out", tmp_path / "tmp"
    temps.mkdir()
    args: list[str | Path] = ["match", folder / "a", folder / "b", "-n", "400", *FAST, "--out", out]
    proc = start(args, temps)
    try:
        wait_for_jobs(proc, out, 2)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=scaled(60))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr
    recorded = db_rows(out, "SELECT count(*) FROM results")[0][0]
    assert 0 < recorded < 400
    assert f"match interrupted by SIGINT: {recorded} of 400 games recorded" in stderr
    assert "Score of a vs b:" in stdout and "Elo difference:" in stdout
    assert json.loads((out / "summary.json").read_text())["games"] == recorded
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr
    assert list(temps.iterdir()) == []
    assert not bot_processes(out)  # bots run from their snapshots in out/bots
    done = cli(*args)
    assert f"{recorded} already played" in done.stderr
    assert json.loads((out / "summary.json").read_text())["games"] == 400
