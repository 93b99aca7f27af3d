"""End-to-end leagues of small fast bots: deal groups, kill -9 and resume, refusal, a Dask cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import without_warnings

from league.conftest import cli, db_rows, standings

FAST = ("--sandbox", "none", "--jobs", "2")


def test_duplicate_group_shares_deals_and_every_bot_holds_every_hand(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c"])
    out = tmp_path / "out"
    cli("league", folder, "--games", "12", "--out", out, *FAST)
    rows = db_rows(out, "SELECT g.cluster, g.seating, r.replay FROM games g JOIN results r USING (game_id)")
    assert len(rows) == 12
    groups: dict[str, list[tuple[list[str], Path]]] = defaultdict(list)
    for cluster, seating, replay in rows:
        groups[cluster].append((json.loads(seating), out / replay))
    assert len(groups) == 2
    for games in groups.values():
        assert len(games) == 6  # 3 rotations x 2 directions
        deals: list[dict[int, list[list[int]]]] = []
        for seating, replay in games:
            records = [json.loads(line) for line in replay.read_text().splitlines()]
            header = records[0]
            assert [p["name"] for p in header["players"]] == seating
            deals.append({r["round"]: r["hands"] for r in records if r["type"] == "round_start"})
        # the same hands by seat, round by round, in every game of the group
        for other in deals[1:]:
            for round_no in set(deals[0]) & set(other):
                assert other[round_no] == deals[0][round_no]
        # every bot held every seat's hand
        for seat in range(3):
            assert sorted(seating[seat] for seating, _ in games) == ["a", "a", "b", "b", "c", "c"]


def descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rfind(b")") + 2 :].split()[1])
    found = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in found and pid not in found:
                found.add(pid)
                grew = True
    return found - {root}


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


def _league_args(folder: Path, out: Path) -> list[str | Path]:
    # an explicit seed: two leagues in two folders deal the same games (else each draws a secret)
    return ["league", folder, "--games", "480", "--table-size", "3", "--seed", "0", "--out", out, *FAST]


@pytest.mark.slow
def test_resume_after_kill_minus_nine_records_every_game_once_with_the_same_standings(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c", "d", "e"])
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    temps = tmp_path / "tmp"  # the league's TMPDIR: only its bots' temp folders go in here
    temps.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *map(str, _league_args(folder, killed))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temps)},
    )
    try:
        deadline = time.monotonic() + 90
        done = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if (killed / "league.db").exists():
                try:
                    done = db_rows(killed, "SELECT count(*) FROM jobs WHERE done = 1")[0][0]
                except Exception:  # the schema may not exist yet
                    done = 0
                if done >= 3:
                    break
            time.sleep(0.02)
        assert proc.poll() is None, "the league finished before it could be killed: make it longer"
        assert [p.name[:13] for p in temps.glob("llama-*")] == ["llama-league-"]  # one parent for the run
        assert list(temps.glob("llama-league-*/llama-*"))  # the bots' own temp folders, inside it
        # the ratings read a running league
        live = cli("ratings", killed)
        assert "Elo ratings" in live.stdout
        tree = descendants(proc.pid)
        assert len(tree) >= 3  # the forkserver and two workers at least
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    # the workers (and their bots, and the forkserver) notice and go away
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(pid) for pid in tree):
        time.sleep(0.05)
    assert not [pid for pid in tree if alive(pid)]
    # and remove the bots' private temp folders, and the run's parent of them, on their way out
    # (multiprocessing's own pymp-* folder is the league process's to remove: not after kill -9)
    assert list(temps.glob("llama-*")) == []
    scheduled = db_rows(killed, "SELECT count(*) FROM games")[0][0]
    recorded = db_rows(killed, "SELECT count(*) FROM results")[0][0]
    assert 0 < recorded < scheduled  # killed mid-run
    cli(*_league_args(folder, killed))
    cli(*_league_args(folder, clean))
    assert db_rows(killed, "SELECT count(*), count(DISTINCT game_id) FROM results") == [
        (scheduled, scheduled)
    ]
    assert db_rows(killed, "SELECT count(*) FROM seats")[0][0] == 3 * scheduled
    assert db_rows(killed, "SELECT count(*) FROM jobs WHERE done = 0") == [(0,)]
    assert not list(killed.rglob("*.part"))
    assert len(list((killed / "replays").rglob("*.jsonl"))) == scheduled
    assert standings(killed) == standings(clean)
    # a finished league run again plays nothing and keeps its standings
    again = cli(*_league_args(folder, killed))
    assert "0 games played" in again.stderr
    assert standings(killed) == standings(clean)


def test_a_changed_bot_or_config_is_refused_unless_forced(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b"])
    out = tmp_path / "out"
    cli("league", folder, "--games", "4", "--out", out, *FAST)
    other = cli("league", folder, "--games", "4", "--move-time", "2", "--out", out, *FAST, check=False)
    assert other.returncode == 2
    assert without_warnings(other.stderr) == [
        f"error: {out.resolve()}: the league config changed (move_time: 1.0 -> 2.0) since this league started; "
        "run it with another --out, or add --force to discard its results and start over"
    ]
    with open(folder / "b" / "bot.py", "a") as fh:
        fh.write("# changed\n")
    changed = cli("league", folder, "--games", "4", "--out", out, *FAST, check=False)
    assert changed.returncode == 2
    assert "bot 'b' changed (its folder's files differ)" in changed.stderr
    assert len(without_warnings(changed.stderr)) == 1, changed.stderr
    forced = cli("league", folder, "--games", "4", "--out", out, *FAST, "--force")
    assert "4 games played" in forced.stderr
    assert db_rows(out, "SELECT count(*) FROM results") == [(4,)]


def test_a_damaged_database_is_one_line(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    out = tmp_path / "out"
    out.mkdir()
    (out / "league.db").write_bytes(b"garbage" * 1000)
    done = cli("league", folder, "--games", "4", "--out", out, *FAST, check=False)
    assert done.returncode == 2
    lines = without_warnings(done.stderr)
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {out.resolve() / 'league.db'}: not a readable league database")
    assert (out / "league.db").read_bytes() == b"garbage" * 1000  # nothing overwritten
    # --force keeps the damaged file aside and starts over
    cli("league", folder, "--games", "4", "--out", out, *FAST, "--force")
    assert (out / "league.db.damaged").read_bytes() == b"garbage" * 1000
    assert db_rows(out, "SELECT count(*) FROM results") == [(4,)]


def test_ratings_read_a_league_folder_whose_path_has_uri_characters(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    out = tmp_path / "league #1?x=%20"
    cli("league", bots(["a", "b"]), "--games", "4", "--out", out, *FAST)
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    assert data["games"] == 4


@pytest.mark.slow
def test_a_league_on_a_dask_cluster_equals_the_local_league(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    from distributed import LocalCluster

    folder = bots(["a", "b", "c", "d"])
    local, remote = tmp_path / "local", tmp_path / "dask"
    args = ["--games", "48", "--table-size", "3", "--seed", "11", "--sandbox", "none"]
    cli("league", folder, "--out", local, "--jobs", "2", *args)
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        done = cli("league", folder, "--out", remote, "--cluster", cluster.scheduler_address, *args)
    assert f"on the Dask cluster at {cluster.scheduler_address}" in done.stderr
    assert standings(remote) == standings(local)
    assert db_rows(remote, "SELECT count(*) FROM results") == [(48,)]


@pytest.mark.slow
def test_without_a_terminal_progress_is_plain_lines(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c"])
    done = cli("league", folder, "--games", "60", "--out", tmp_path / "out", *FAST)
    lines = done.stderr.splitlines()
    assert not any("\r" in line for line in lines)
    assert any(line.startswith("60/60 games") and "top (win share)" in line for line in lines)
    assert "Elo ratings: 60 games" in done.stdout and "±95%" in done.stdout
    assert os.fspath((tmp_path / "out").resolve()) in done.stdout


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to show pinning")
def test_each_worker_and_its_bots_share_one_core(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    """A pipe round trip costs ~6 µs within a core and 33-46 µs across: workers are pinned."""
    folder = bots(["a", "b", "c"])
    for name in ("a", "b", "c"):  # each bot logs the cores it may run on, at every start
        script = folder / name / "bot.py"
        script.write_text(
            "import os, sys\nprint('cores', sorted(os.sched_getaffinity(0)), file=sys.stderr, flush=True)\n"
            + script.read_text()
        )
    out = tmp_path / "out"
    cli("league", folder, "--games", "36", "--out", out, *FAST)
    seen = [
        line
        for name in ("a", "b", "c")
        for line in (out / "logs" / f"{name}.stderr.log").read_text().splitlines()
        if line.startswith("cores")
    ]
    assert seen, "no bot reported its cores"
    assert all(line.count(",") == 0 for line in seen), seen  # one core each: "cores [1]"
    assert len(set(seen)) == 2  # the two workers, on two different cores


@pytest.mark.slow
def test_ratings_formats_and_anchor(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    out = tmp_path / "out"
    cli("league", bots(["a", "b", "c"]), "--games", "36", "--out", out, *FAST)
    table = cli("ratings", out).stdout
    assert "±95%" in table and all(name in table for name in "abc")
    rows = cli("ratings", out, "--format", "csv").stdout.strip().splitlines()
    assert rows[0].startswith("rank,bot,elo,ci95") and len(rows) == 4
    data = json.loads(cli("ratings", out, "--format", "json", "--anchor", "b=2000").stdout)
    assert {bot["name"]: bot["elo"] for bot in data["bots"]}["b"] == pytest.approx(2000)
    assert data["games"] == 36 and set(data["los"]) == {"a", "b", "c"}
