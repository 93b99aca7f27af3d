"""Bad input, round 3: each is one clear error (or a recorded fault) and leaves nothing behind.

Non-finite numbers on the command line, a bot started with too much, a program path
holding ``=``, bots' strings holding newlines, FIFOs and devices where a file is read
or written, and damaged league databases.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from helpers import copy_bot, fault_bot, invoke, one_error, random_bot, time_limit

from harness.bots.process import env_argv
from harness.html.report import faults_table
from harness.terminal import printable

REPO = Path(__file__).resolve().parents[2]
LL_RANDOM = REPO / "sample_bots" / "llama_llama_random"
HANG = 60  # seconds: far beyond any of these commands, short of a hung CI job


def _usage_error(result: Result, option: str) -> None:
    """Refused by click when the command line is parsed: exit 2, the option named, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit)
    assert f"Invalid value for '{option}'" in result.stderr, result.stderr
    assert "Traceback" not in result.output


# -- numbers: refused at parse time, before any folder is touched -------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--move-time", "nan"], "--move-time"),
        (["--startup-time", "nan"], "--startup-time"),
        (["--move-time", "inf"], "--move-time"),
        (["--sprt", "0,10", "--alpha", "nan"], "--alpha"),
        (["--sprt", "0,10", "--beta", "inf"], "--beta"),
    ],
)
def test_a_non_finite_number_is_refused_when_parsed_before_the_match_folder(
    tmp_path: Path, args: list[str], option: str
) -> None:
    a, b = random_bot(tmp_path, "a"), random_bot(tmp_path, "b")
    _usage_error(invoke("match", a, b, "--out", tmp_path / "o", *args), option)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--sprt", "0,1e308"], "within ±1000 Elo"),
        (["--sprt", "nan,10"], "must be finite"),
        (["--sprt", "-inf,10"], "must be finite"),
        (["--sprt", "10,0"], "ELO0 < ELO1"),
        (["--sprt", "0,10", "--beta", "0.5"], "--beta must be in (0, 0.5)"),
        (["--sprt", "0,10", "--alpha", "0"], "--alpha must be in (0, 0.5)"),
    ],
)
def test_senseless_sprt_bounds_are_one_line_before_the_match_folder(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    a, b = random_bot(tmp_path, "a"), random_bot(tmp_path, "b")
    one_error(invoke("match", a, b, "--out", tmp_path / "o", *args), needle)
    assert not (tmp_path / "o").exists()


def test_the_corrected_command_then_runs_in_the_same_folder(tmp_path: Path) -> None:
    a, b = random_bot(tmp_path, "a"), random_bot(tmp_path, "b")
    out = tmp_path / "o"
    _usage_error(invoke("match", a, b, "-n", "1", "--out", out, "--move-time", "nan"), "--move-time")
    done = invoke("match", a, b, "-n", "1", "--out", out, "--move-time", "5", "--sandbox", "none")
    assert done.exit_code == 0, done.output
    assert (out / "league.db").is_file()


def test_a_non_finite_confidence_anchor_or_check_bot_clock(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    random_bot(bots, "a")
    random_bot(bots, "b")
    _usage_error(invoke("league", bots, "--out", tmp_path / "l", "--until-decided", "--confidence", "nan"), "--confidence")
    assert not (tmp_path / "l").exists()
    _usage_error(invoke("check-bot", bots / "a", "--move-time", "nan", "--out", tmp_path / "c"), "--move-time")
    assert not (tmp_path / "c").exists()
    one_error(invoke("ratings", tmp_path, "--anchor", "a=inf"), "--anchor 'a=inf'")


# -- what a bot is started with --------------------------------------------------------


def test_a_huge_env_value_is_refused_at_load_naming_the_bot(tmp_path: Path) -> None:
    big = copy_bot(REPO / "sample_bots" / "random", tmp_path / "big", name="big", env={"X": "a" * 200_000})
    line = one_error(invoke("match", big, random_bot(tmp_path, "b"), "--out", tmp_path / "o"), "bot 'big'", "env.X")
    assert "64 KiB" in line  # the documented cap (harness.bots.argsize.ARG_CAP)
    assert not (tmp_path / "o").exists()


def test_an_env_just_under_the_cap_starts(tmp_path: Path) -> None:
    """The cap is not tighter than it says: a bot with 60 KiB of env starts and plays."""
    bot = copy_bot(REPO / "sample_bots" / "random", tmp_path / "env", name="env", env={"X": "a" * (60 << 10)})
    out = tmp_path / "o"
    done = invoke("match", bot, random_bot(tmp_path, "b"), "-n", "1", "--out", out, "--sandbox", "none")
    assert done.exit_code == 0, done.output
    assert json.loads((out / "summary.json").read_text())["faults"] == [], done.output


def _equals_program(folder: Path) -> Path:
    program = folder / "a=b"
    program.write_text('#!/bin/sh\necho "ran $*"\n')
    program.chmod(0o755)
    return program


def test_env_argv_never_takes_the_program_for_an_assignment(tmp_path: Path) -> None:
    folder = tmp_path / "x=y"  # a folder name with '=': the resolved program holds one too
    folder.mkdir()
    program = str(_equals_program(folder))
    argv = [*env_argv({"A": "1"}, [program]), program, "--flag", "B=2"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "ran --flag B=2\n"), done
    # without '=' nothing comes between env and the program (no cost on the usual path)
    assert env_argv({"A": "1"}, ["/usr/bin/true"]) == env_argv({"A": "1"})


def test_a_bot_whose_program_holds_equals_plays(tmp_path: Path) -> None:
    bot = random_bot(tmp_path, "eq=bot")  # its folder holds '=' too
    (bot / "a=b").write_text(f'#!/bin/sh\nexec {sys.executable} "$(dirname "$0")/bot.py" "$@"\n')
    (bot / "a=b").chmod(0o755)
    (bot / "bot.toml").write_text('name = "eq"\ncommand = ["./a=b"]\n')
    out = tmp_path / "o"
    done = invoke("match", bot, random_bot(tmp_path, "b"), "-n", "2", "--out", out, "--sandbox", "none")
    assert done.exit_code == 0, done.output
    assert json.loads((out / "summary.json").read_text())["faults"] == [], done.output


# -- bots' strings: each on its own line -------------------------------------------------

FORGED = "0:alpha 1.0  1:bravo 1.0"


def _forged_replay(tmp_path: Path, play_fake: Any) -> Path:
    path = tmp_path / "game.jsonl"
    play_fake(path, players=2, faults={0: 2})
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["players"][1]["version"] = "1.0\n" + FORGED + "\x1b[2J"
    for row in rows:
        if row["type"] == "fault":
            row["detail"] = "late\n  !! FAULT seat 1 (bravo): forged\r"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_a_newline_in_a_version_or_fault_detail_is_shown_not_printed(tmp_path: Path, play_fake: Any) -> None:
    path = _forged_replay(tmp_path, play_fake)
    done = invoke("replay", path)
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert FORGED not in lines and not any(line.startswith("  !! FAULT seat 1") for line in lines), done.output
    assert "1.0\\n" + FORGED + "\\x1b[2J" in done.output
    assert "late\\n  !! FAULT seat 1 (bravo): forged\\r" in done.output
    assert "\x1b" not in done.output and "\r" not in done.output


def test_the_html_report_and_viewer_show_bots_strings_on_one_line(tmp_path: Path, play_fake: Any) -> None:
    page = faults_table([{"game": 1, "bot": "a", "seat": 0, "kind": "crash", "detail": "x\ny\x1b[2J"}], [None])
    assert "x\\ny\\x1b[2J" in page and "x\ny" not in page and "\x1b" not in page
    done = invoke("replay", _forged_replay(tmp_path, play_fake), "--html", tmp_path / "v.html")
    assert done.exit_code == 0, done.output
    text = (tmp_path / "v.html").read_text()
    assert "1.0\\n" + FORGED in text and "\x1b" not in text
    from harness.terminal import inline

    assert inline("a\tb\u2028c") == "a\\tb\\u2028c" and printable("a\nb") == "a\nb"


# -- inputs: regular files only, never blocking, capped -----------------------------------


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("extra", [[], ["--verify"], ["--html", "out.html"], ["--verify", "--html", "out.html"]])
def test_a_fifo_given_to_replay_is_refused_not_waited_for(tmp_path: Path, extra: list[str]) -> None:
    fifo = _fifo(tmp_path / "game.jsonl")
    args = [str(tmp_path / a) if a.endswith(".html") else a for a in extra]
    with time_limit(HANG):
        line = one_error(invoke("replay", fifo, *args), str(fifo))
    assert "not a regular file" in line
    assert not (tmp_path / "out.html").exists()


def test_a_gz_replay_that_decompresses_past_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, play_fake: Any
) -> None:
    import harness.replay.io as io

    path = tmp_path / "game.jsonl.gz"
    play_fake(path, players=4)
    cap = path.stat().st_size + 1  # the real cap is 64 MiB: the same check, at a file's size
    assert len(gzip.decompress(path.read_bytes())) > cap
    monkeypatch.setattr(io, "MAX_REPLAY", cap)
    with time_limit(HANG):
        one_error(invoke("replay", path, "--verify"), str(path), "of records: not a replay")


@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_a_card_set_that_is_a_fifo_or_a_device_is_refused(tmp_path: Path, source: str) -> None:
    card_set = _fifo(tmp_path / "cards.toml") if source == "fifo" else Path(source)
    bots = [copy_bot(LL_RANDOM, tmp_path / n, name=n) for n in ("p", "q")]
    for bot in bots:  # copy_bot writes name, version and command only
        (bot / "bot.toml").write_text((bot / "bot.toml").read_text() + 'games = ["llama-llama"]\n')
    with time_limit(HANG):
        line = one_error(
            invoke("match", *bots, "--game", "llama-llama", "--card-set", card_set, "--out", tmp_path / "o"),
            str(card_set),
        )
    assert "not a regular file" in line
    assert not (tmp_path / "o").exists()


# -- a small league with faults, shared by the database tests ---------------------------


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished league (random, random, a bot that crashes) and its bots folder."""
    root = tmp_path_factory.mktemp("league3")
    bots = root / "bots"
    random_bot(bots, "a")
    random_bot(bots, "b")
    fault_bot(bots, "crash_mid", name="crash")
    out = root / "league"
    done = invoke("league", bots, "--games", "6", "--jobs", "1", "--sandbox", "none", "--seed", "3", "--out", out)
    assert done.exit_code == 0, done.output
    return bots, out


@pytest.fixture(scope="module")
def match_folder(league: tuple[Path, Path]) -> Path:
    """A finished two-bot match beside the league."""
    bots, out = league
    folder = out.parent / "match"
    done = invoke("match", bots / "a", bots / "crash", "-n", "2", "--sandbox", "none", "--seed", "3", "--out", folder)
    assert done.exit_code == 0, done.output
    return folder


def _copy(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest)
    return dest


def test_report_skips_a_replay_the_database_names_that_is_a_fifo(league: tuple[Path, Path], tmp_path: Path) -> None:
    _, source = league
    folder = _copy(source, tmp_path / "l")
    with sqlite3.connect(folder / "league.db") as db:
        replays = [row[0] for row in db.execute("SELECT r.replay FROM faults f JOIN results r USING (game_id)")]
    assert replays, "the crashing bot left no fault"
    target = Path(replays[0]) if Path(replays[0]).is_absolute() else folder / replays[0]
    target.unlink()
    _fifo(target)
    with time_limit(HANG):
        done = invoke("report", folder, "--out", tmp_path / "r.html")
    assert done.exit_code == 0, done.output
    assert stat.S_ISFIFO(target.stat().st_mode)
    assert "data-testid=\"faults\"" in (tmp_path / "r.html").read_text()


# -- outputs: an existing FIFO or device is refused, never replaced ----------------------


def _special(kind: str, path: Path) -> Path:
    if kind == "fifo":
        return _fifo(path)
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # /dev/full's numbers, in tmp_path
    return path


def _is_kind(kind: str, path: Path) -> bool:
    mode = path.lstat().st_mode
    return stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_report_out_over_a_fifo_or_device_is_refused(league: tuple[Path, Path], tmp_path: Path, kind: str) -> None:
    out = _special(kind, tmp_path / "report.html")
    with time_limit(HANG):
        one_error(invoke("report", league[1], "--out", out), str(out), "not a regular file")
    assert _is_kind(kind, out)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_replay_html_and_dump_over_a_fifo_or_device_are_refused(tmp_path: Path, kind: str, play_fake: Any) -> None:
    replay = tmp_path / "game.jsonl"
    play_fake(replay, players=2)
    html = _special(kind, tmp_path / "v.html")
    with time_limit(HANG):
        one_error(invoke("replay", replay, "--html", html), str(html), "not a regular file")
    assert _is_kind(kind, html)
    dump = _special(kind, tmp_path / "input.jsonl")
    with time_limit(HANG):
        one_error(invoke("replay", replay, "--at", "1", "--seat", "0", "--dump", dump), str(dump), "not a regular file")
    assert _is_kind(kind, dump)


def test_schema_over_a_fifo_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    folder.mkdir()
    fifo = _fifo(folder / "bot-toml.schema.json")
    with time_limit(HANG):
        one_error(invoke("schema", "--dir", folder), str(fifo), "not a regular file")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in folder.iterdir()] == [fifo.name]


# -- damaged databases: one line for every command that opens one ------------------------


def _garbage(db: sqlite3.Connection | None, path: Path) -> None:
    path.write_bytes(b"this is not a database\n" * 200)


def _sql(*statements: str) -> Callable[[sqlite3.Connection | None, Path], None]:
    def apply(db: sqlite3.Connection | None, path: Path) -> None:
        assert db is not None
        for statement in statements:
            db.execute(statement)
        db.commit()

    return apply


DAMAGE: dict[str, Callable[[sqlite3.Connection | None, Path], None]] = {
    "garbage file": _garbage,
    "no results table": _sql("DROP TABLE results"),
    "no seats.place column": _sql("ALTER TABLE seats DROP COLUMN place"),
    "text game ids": _sql(  # an INTEGER PRIMARY KEY cannot hold text: a table made by hand
        "CREATE TABLE r2 AS SELECT 'x' || game_id AS game_id, rounds, moves, adjudicated, replay FROM results",
        "DROP TABLE results",
        "ALTER TABLE r2 RENAME TO results",
    ),
    "extra seats rows": _sql("INSERT INTO seats SELECT game_id, seat + 3, bot, score, place, forfeited FROM seats"),
}


def _commands(bots: Path, folder: Path) -> dict[str, list[str | Path]]:
    return {
        "ratings": ["ratings", folder],
        "report": ["report", folder, "--out", folder.parent / "r.html"],
        "league resume": ["league", bots, "--games", "6", "--jobs", "1", "--sandbox", "none", "--seed", "3", "--out", folder],
        "match resume": ["match", bots / "a", bots / "crash", "-n", "2", "--sandbox", "none", "--seed", "3", "--out", folder],
    }


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("command", ["ratings", "report", "league resume", "match resume"])
def test_a_damaged_league_database_is_one_line(
    league: tuple[Path, Path], match_folder: Path, tmp_path: Path, damage: str, command: str
) -> None:
    bots, source = league
    folder = _copy(match_folder if command == "match resume" else source, tmp_path / "l")
    path = folder / "league.db"
    if damage == "garbage file":
        DAMAGE[damage](None, path)
    else:
        with sqlite3.connect(path) as db:
            DAMAGE[damage](db, path)
    with time_limit(HANG):
        result = invoke(*_commands(bots, folder)[command])
    assert "Traceback" not in result.output and not isinstance(result.exception, (TypeError, ValueError, KeyError))
    if damage == "extra seats rows" and result.exit_code == 0:
        return  # a fixed league reads its games by seat: the extra rows are beyond its tables
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and lines[-1].startswith("error: "), result.output
    assert str(path) in lines[-1] or str(folder) in lines[-1], lines[-1]


def test_extra_seats_rows_on_an_until_decided_resume_are_one_line(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    for name in ("a", "b", "c"):
        random_bot(bots, name)
    out = tmp_path / "u"
    args = ["league", bots, "--until-decided", "--games", "12", "--jobs", "1", "--sandbox", "none", "--seed", "5"]
    first = invoke(*args, "--out", out)
    assert first.exit_code == 0, first.output
    with sqlite3.connect(out / "league.db") as db:
        db.execute("INSERT INTO seats SELECT game_id, seat + 3, bot, score, place, forfeited FROM seats WHERE game_id = 1")
    again = invoke(*args, "--out", out)
    assert again.exit_code == 2 and "Traceback" not in again.output, (again.output, again.exception)
    last = again.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "league.db" in last and "game 1" in last, last
