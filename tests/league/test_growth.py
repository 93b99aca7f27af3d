"""A league that grows: more games, new bots, retired bots; what decides play still cannot change."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from league.conftest import cli, db_rows, make_bots, standings

FAST = ("--sandbox", "none", "--jobs", "2", "--table-size", "3", "--seed", "1")


def seats(out: Path, upto: int | None = None) -> list[tuple[object, ...]]:
    where = f"WHERE game_id <= {upto}" if upto else ""
    return db_rows(out, f"SELECT game_id, seat, bot, score, place FROM seats {where} ORDER BY game_id, seat")


@pytest.mark.slow
def test_more_games_then_a_new_bot_then_a_retired_one(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b", "c"])
    out = tmp_path / "out"
    cli("league", folder, "--games", "24", "--out", out, *FAST)
    first = seats(out)
    assert len(first) == 24 * 3

    grown = cli("league", folder, "--games", "48", "--out", out, *FAST)
    assert "league revised: games 24 -> 48" in grown.stderr and "24 games played" in grown.stderr
    assert seats(out, 24) == first  # everything stored is kept as it was
    assert db_rows(out, "SELECT count(*), count(DISTINCT game_id) FROM results") == [(48, 48)]

    make_bots(folder, ["d"])  # a new bot folder: with more games, it joins
    refused = cli("league", folder, "--games", "48", "--out", out, *FAST, check=False)
    assert refused.returncode == 2 and refused.stderr.count("error:") == 1
    assert "bots: d added, but the league's 48 games are all scheduled; raise --games above 48" in refused.stderr
    joined = cli("league", folder, "--games", "120", "--out", out, *FAST)
    assert "added d" in joined.stderr
    new_games = db_rows(out, "SELECT bot, count(*) FROM seats WHERE game_id > 48 GROUP BY bot")
    counts = dict(new_games)  # the new set plays balanced from here on (tables of 3 of 4 bots)
    assert set(counts) == {"a", "b", "c", "d"} and max(counts.values()) - min(counts.values()) <= 6, counts

    shutil.rmtree(folder / "a")  # retire a: its games stay in the ratings, it plays no more
    retired = cli("league", folder, "--games", "168", "--out", out, *FAST)
    assert "retired a" in retired.stderr
    assert db_rows(out, "SELECT count(*) FROM seats WHERE bot = 'a' AND game_id > 120") == [(0,)]
    assert {bot["name"] for bot in standings(out)["bots"]} == {"a", "b", "c", "d"}
    revisions = db_rows(out, "SELECT revision, bots, games, change FROM revisions ORDER BY revision")
    assert [(r, json.loads(b), g) for r, b, g, _ in revisions] == [
        (0, ["a", "b", "c"], 24),
        (1, ["a", "b", "c"], 48),
        (2, ["a", "b", "c", "d"], 120),
        (3, ["b", "c", "d"], 168),
    ]
    assert seats(out, 24) == first
    # the same command again is a resume: nothing new is scheduled or played
    again = cli("league", folder, "--games", "168", "--out", out, *FAST)
    assert "0 games played" in again.stderr and "revised" not in again.stderr

    # the rules, the clocks and fewer games are still refused
    for args, why in (
        (["--games", "168", "--end-score", "30"], "the league config changed (rules:"),
        (["--games", "168", "--move-time", "2"], "the league config changed (move_time: 1.0 -> 2.0)"),
        (["--games", "100"], "games: 168 -> 100: a league keeps every game it has; it can only grow"),
    ):
        done = cli("league", folder, *args, "--out", out, *FAST, check=False)
        assert done.returncode == 2 and why in done.stderr and done.stderr.count("error:") == 1, done.stderr


@pytest.mark.slow
def test_a_growth_killed_mid_run_resumes_to_the_same_standings(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c", "d"])
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    base = list(FAST)
    for out in (killed, clean):
        cli("league", folder, "--games", "48", "--out", out, *base)
    make_bots(folder, ["e"])
    grow = [sys.executable, "-m", "harness", "league", folder, "--games", "528", *base]
    proc = subprocess.Popen([*map(str, grow), "--out", str(killed)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            revised = db_rows(killed, "SELECT count(*) FROM revisions")[0][0]
            done = db_rows(killed, "SELECT count(*) FROM results")[0][0]
            if revised == 2 and done >= 48 + 30:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the growth finished before it could be killed: make it longer"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert 48 < db_rows(killed, "SELECT count(*) FROM results")[0][0] < 528
    cli(*grow[3:], "--out", killed)
    cli(*grow[3:], "--out", clean)
    scheduled = db_rows(killed, "SELECT count(*) FROM games")[0][0]
    assert scheduled >= 528
    assert db_rows(killed, "SELECT count(*), count(DISTINCT game_id) FROM results") == [(scheduled, scheduled)]
    assert db_rows(killed, "SELECT count(*) FROM revisions") == [(2,)]
    assert standings(killed) == standings(clean)
    per_bot = Counter(dict(db_rows(killed, "SELECT bot, count(*) FROM seats WHERE game_id > 48 GROUP BY bot")))
    assert set(per_bot) == set("abcde")
