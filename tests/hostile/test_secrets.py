"""The league secret stays secret: file modes, ``replay --bot``, nested folders, a lost secret, the jobs.

Every deal and bot seed of a match or league is hashed from its secret (harness.seeds);
each test here is an attack that read or bypassed it before the fix.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result

from harness.bots.manifest import load_bot
from harness.league.matches import match_config
from harness.league.runner import JobTask, job_task
from harness.league.schedule import match_schedule
from harness.league.store import DB_NAME, Store
from harness.match import SECRET_FILE
from harness.replay.reproduce import league_folders
from harness.seeds import bot_seed, new_secret

HERE = Path(__file__).resolve().parent
BWRAP = shutil.which("bwrap")
NONE = ("--sandbox", "none")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _bots(tmp_path: Path, *names: str) -> list[Path]:
    from helpers import random_bot

    return [random_bot(tmp_path / "bots", name) for name in names]


def _ok(*args: str | Path) -> str:
    from helpers import invoke

    done = invoke(*args)
    assert done.exit_code == 0, (done.output, done.exception)
    return done.output


def _refused(result: Result, *needles: str) -> None:
    """Exit 2 with one ``error:`` line holding ``needles``, no traceback (an sprt prints its header first)."""
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert result.exit_code == 2 and len(errors) == 1, (result.exit_code, result.output)
    assert "Traceback" not in result.output and result.stderr.rstrip("\n").endswith(errors[0])
    for needle in needles:
        assert needle in errors[0], errors[0]


# -- 1. files holding the secret are readable by their owner only --------------------------


def _command(which: str, tmp_path: Path, r1: Path, r2: Path) -> tuple[str | Path, ...]:
    """A small run of one of the commands that write a league folder (random bots, no sandbox)."""
    bots = tmp_path / "bots"
    return {
        "match": ("match", r1, r2, "--games", "2", *NONE),
        "sprt": ("match", r1, r2, "--sprt", "0,400", "--games", "24", *NONE),
        "league": ("league", bots, "--games", "4", "--jobs", "1", *NONE),
        "until-decided": ("league", bots, "--until-decided", "--games", "24", "--jobs", "1", *NONE),
        "gauntlet": ("league", bots, "--gauntlet", r2, "--games", "6", "--jobs", "1", *NONE),
    }[which]


def _runs(tmp_path: Path) -> dict[str, tuple[str | Path, ...]]:
    r1, r2 = _bots(tmp_path, "r1", "r2")
    return {which: _command(which, tmp_path, r1, r2) for which in ("match", "sprt", "league", "until-decided")}


@pytest.mark.parametrize("run", ["match", "sprt", "league", "until-decided"])
def test_every_file_holding_the_secret_is_owner_only(run: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _ok(*_runs(tmp_path)[run], "--out", out)
    holders = [out / DB_NAME, *(out / f"{DB_NAME}{s}" for s in ("-wal", "-shm") if (out / f"{DB_NAME}{s}").exists())]
    if (out / SECRET_FILE).exists():
        holders.append(out / SECRET_FILE)
    assert {path.name: _mode(path) for path in holders} == {path.name: 0o600 for path in holders}
    with Store.open_league(out) as store:
        secret = str(store.meta("secret"))
    summary = out / "summary.json"
    if summary.exists():  # readable by all: it holds no secret
        assert secret not in summary.read_text() and "secret" not in json.loads(summary.read_text())


def test_the_database_and_its_wal_and_shm_are_owner_only_from_creation(tmp_path: Path) -> None:
    old = os.umask(0)  # the most permissive umask: SQLite would make every file 0666 (0644 at 022)
    try:
        path = tmp_path / DB_NAME
        with Store(path) as store:
            store.create({"kind": "league", "bots": []}, {}, [], [], secret=new_secret())
            # the league process holds the database open: WAL and SHM exist now
            modes = {p.name: _mode(p) for p in tmp_path.iterdir()}
    finally:
        os.umask(old)
    assert modes == {DB_NAME: 0o600, f"{DB_NAME}-wal": 0o600, f"{DB_NAME}-shm": 0o600}


def test_a_database_of_an_older_harness_is_tightened_when_opened(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (x)")
    db.commit()
    for file in tmp_path.iterdir():
        file.chmod(0o644)
    wal = [p for p in tmp_path.iterdir() if p.name != DB_NAME]
    assert wal  # the open connection keeps its WAL and SHM
    with Store(path):
        assert {p.name: _mode(p) for p in tmp_path.iterdir()} == {p.name: 0o600 for p in tmp_path.iterdir()}
    db.close()


# -- 2. replay --at --bot: the bot sees nothing of the replay's league -------------------


def _snoop(tmp_path: Path, league: Path) -> Path:
    from helpers import copy_bot

    return copy_bot(HERE / "bots" / "snoop", tmp_path / "snoop", env={"SNOOP_PATHS": str(league)})


@pytest.fixture
def shown_folder() -> Iterator[Path]:
    """A fresh folder under /opt, which the sandbox shows every bot (read-only), unlike /tmp."""
    if os.geteuid() != 0:
        pytest.skip("needs root: the test's league folder goes under /opt (shown to bots), writable by root only")
    folder = Path(tempfile.mkdtemp(prefix="llama-test-secrets-", dir="/opt"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed: nothing hides a folder")
@pytest.mark.parametrize("kind", ["match", "league"])
def test_replay_bot_reads_nothing_of_the_league_folder(kind: str, tmp_path: Path, shown_folder: Path) -> None:
    r1, r2 = _bots(tmp_path, "r1", "r2")
    # a league folder the sandbox would show (a /tmp one is behind the bot's own /tmp anyway)
    out = shown_folder / "out"
    if kind == "match":
        _ok("match", r1, r2, "--games", "1", *NONE, "--out", out)
        replay = out / "replays" / "game-00001.jsonl"
    else:
        _ok("league", tmp_path / "bots", "--games", "2", "--jobs", "1", *NONE, "--out", out)
        replay = out / "replays" / "000" / "game-000001.jsonl"
    snoop = _snoop(tmp_path, out)

    def fed(sandbox: str) -> str:
        """The verdict (exit 1: the bot quits when it finds nothing), with the bot's stderr."""
        from helpers import invoke

        done = invoke("replay", replay, "--at", "1", "--seat", "0", "--bot", snoop, "--sandbox", sandbox)
        assert done.exit_code in (0, 1) and "stderr (last lines):" in done.output, done.output
        return done.output

    # the snooping bot walks the league folder: the database (secret), logs, other replays
    hidden = fed("bwrap")
    assert "SNOOP FOUND" not in hidden and "SNOOP TOTAL 0" in hidden, hidden
    # without the sandbox nothing is hidden: the same bot finds them (the test can fail)
    assert f"SNOOP FOUND {out / DB_NAME}" in fed("none")


def test_the_league_folders_of_a_replay_are_found_from_its_path(tmp_path: Path) -> None:
    league = tmp_path / "league"
    (league / "replays" / "000").mkdir(parents=True)
    (league / DB_NAME).write_bytes(b"")
    replay = league / "replays" / "000" / "game-000001.jsonl"
    replay.write_text("")
    assert league_folders(replay) == [league]
    outer = tmp_path / "copied"  # a replay copied beside a match's secret
    outer.mkdir()
    (outer / SECRET_FILE).write_text("x\n")
    (outer / "g.jsonl").write_text("")
    assert league_folders(outer / "g.jsonl") == [outer]


def test_replay_bot_refuses_a_bot_folder_holding_the_league(tmp_path: Path) -> None:
    from helpers import invoke, one_error

    r1, r2 = _bots(tmp_path, "r1", "r2")
    out = tmp_path / "out"
    _ok("match", r1, r2, "--games", "1", *NONE, "--out", out)
    holder = _snoop(tmp_path, out)
    shutil.move(out, holder / "out")  # the league folder inside the bot's own (visible) folder
    replay = holder / "out" / "replays" / "game-00001.jsonl"
    done = invoke("replay", replay, "--at", "1", "--seat", "0", "--bot", holder, "--sandbox", "none")
    one_error(done, f"--bot {holder}", str(holder / "out"), "the bot could read")


# -- 3. --out and the bots' folders never nest --------------------------------------------


COMMANDS = ["match", "sprt", "league", "until-decided", "gauntlet"]


@pytest.mark.parametrize("which", COMMANDS)
def test_an_out_inside_a_bot_folder_is_refused(which: str, tmp_path: Path) -> None:
    from helpers import invoke, one_error

    r1, r2 = _bots(tmp_path, "r1", "r2")
    if which == "gauntlet":  # the new bot is its own folder; the field is another
        shutil.move(r2, tmp_path / "r2")
        r2 = tmp_path / "r2"
        _bots(tmp_path, "r3")
    link = tmp_path / "link"
    link.symlink_to(r2)  # compared resolved: a symlink into the folder does not get past it
    out = link / "out"
    done = invoke(*_command(which, tmp_path, r1, r2), "--out", out)
    one_error(done, f"--out {out}", "inside the folder of bot 'r2'", str(r2.resolve()))
    assert not out.exists()  # refused before anything was written


@pytest.mark.parametrize("which", COMMANDS)
def test_an_out_holding_a_bot_folder_is_refused(which: str, tmp_path: Path) -> None:
    from helpers import invoke, one_error

    r1, r2 = _bots(tmp_path, "r1", "r2")
    if which == "gauntlet":
        shutil.move(r2, tmp_path / "r2")
        r2 = tmp_path / "r2"
        _bots(tmp_path, "r3")
    out = tmp_path / "bots" if which != "gauntlet" else tmp_path
    done = invoke(*_command(which, tmp_path, r1, r2), "--out", out)
    one_error(done, f"--out {out}", "holds the folder of bot", "choose an --out")
    assert not (out / DB_NAME).exists()


# -- 4. a database without its secret is refused, never resumed with '' -------------------


@pytest.mark.parametrize(
    ("run", "stored"),
    [("match", '""'), ("sprt", "null"), ("league", None), ("league", '"short"'), ("until-decided", '""')],
)
def test_a_database_without_its_secret_is_refused(run: str, stored: str | None, tmp_path: Path) -> None:
    from helpers import invoke

    command = _runs(tmp_path)[run]
    out = tmp_path / "out"
    _ok(*command, "--out", out)
    db = sqlite3.connect(out / DB_NAME)
    with db:
        if stored is None:
            db.execute("DELETE FROM meta WHERE key = 'secret'")
        else:
            db.execute("UPDATE meta SET value = ? WHERE key = 'secret'", (stored,))
    db.close()
    again = invoke(*command, "--out", out)
    _refused(again, str(out), "holds no secret for its deals", "--force")
    if stored is None:
        assert "missing" in again.stderr
    # --force starts over with a new secret
    _ok(*command, "--out", out, "--force")
    with Store.open_league(out) as store:
        assert store.secret_problem() is None


def test_a_league_with_an_explicit_seed_resumes_with_its_public_secret(tmp_path: Path) -> None:
    _bots(tmp_path, "r1", "r2")
    out = tmp_path / "out"
    args = ("league", tmp_path / "bots", "--seed", "3", "--jobs", "1", *NONE, "--out", out)
    _ok(*args, "--games", "4")
    _ok(*args, "--games", "8")
    with Store.open_league(out) as store:
        assert store.secret() == "seed:3" and store.counts() == (8, 8)


# -- 5. a job carries its games' bot seeds, never the secret ------------------------------


def test_a_job_task_carries_bot_seeds_and_not_the_secret(tmp_path: Path) -> None:
    r1, r2 = _bots(tmp_path, "r1", "r2")
    config = match_config((load_bot(r1), load_bot(r2)), 4, None, {})
    secret = new_secret()
    job = match_schedule(config.names, 4, secret)[0]
    task = job_task(config, job, tmp_path / "out", None, "tcp://scheduler:8786", None, secret)
    assert "secret" not in {f.name for f in dataclasses.fields(JobTask)}
    # what a Dask client sees of a pending task: the pickled JobTask
    data = pickle.dumps(task)
    assert secret.encode() not in data and secret.encode("utf-16-le") not in data
    assert task.bot_seeds == tuple((bot_seed(secret, g.game_id, 0), bot_seed(secret, g.game_id, 1)) for g in job.games)
