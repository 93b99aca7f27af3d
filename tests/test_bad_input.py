"""Bad input to the harness gives one clear line and a non-zero exit .

Covers what tests/test_cli.py and tests/league do not: names that would escape the
output folder, commands that cannot run, bad ``[limits]`` tables, truncated replays,
and a league database damaged after results were recorded.
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import invoke, one_error

ROOT = Path(__file__).resolve().parent.parent
RANDOM = ROOT / "sample_bots" / "random"




def bot(tmp_path: Path, folder: str, toml: str) -> Path:
    path = tmp_path / folder
    path.mkdir(parents=True)
    (path / "bot.toml").write_text(toml)
    return path


def random_bot(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(RANDOM, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n')
    return target


@pytest.mark.parametrize("name", [".", "..", "../..", "a/b", "/abs", "x/../y", "-rf", "a\\b"])
def test_a_name_that_would_escape_the_output_folder(tmp_path: Path, name: str) -> None:
    folder = bot(tmp_path, "odd", f'name = "{name}"\ncommand = ["python3", "bot.py"]\n'.replace("\\", "\\\\"))
    line = one_error(invoke("match", random_bot(tmp_path, "one"), folder, "--out", tmp_path / "o"), "bot.toml")
    assert "name" in line
    assert not (tmp_path / "o").exists()


def test_a_relative_command_that_is_not_there(tmp_path: Path) -> None:
    folder = bot(tmp_path, "odd", 'name = "odd"\ncommand = ["./my-bot"]\n')
    one_error(invoke("match", random_bot(tmp_path, "one"), folder, "--out", tmp_path / "o"),
              "'./my-bot' is not an executable file")


def test_a_command_that_is_a_file_but_not_executable(tmp_path: Path) -> None:
    folder = bot(tmp_path, "odd", 'name = "odd"\ncommand = ["./bot.sh"]\n')
    (folder / "bot.sh").write_text("#!/bin/sh\n")
    one_error(invoke("match", random_bot(tmp_path, "one"), folder, "--out", tmp_path / "o"),
              "'./bot.sh' is not an executable file")


def test_a_build_command_that_is_not_found(tmp_path: Path) -> None:
    folder = bot(tmp_path, "odd", 'name = "odd"\nbuild = ["no-such-compiler-llama"]\ncommand = ["./bot"]\n')
    one_error(invoke("match", random_bot(tmp_path, "one"), folder, "--out", tmp_path / "o"),
              "'odd'", "'no-such-compiler-llama' not found")


@pytest.mark.parametrize(
    ("limits", "needle"),
    [
        ("ram = 5", "unknown limit 'ram'"),
        ("memory_mb = 0", "memory_mb must be a positive integer, got 0"),
        # more than the kernel can apply: refused at load, not a start-up crash in every game
        ("memory_mb = 99999999999999999999", "memory_mb = 99999999999999999999 cannot be applied"),
        # a bot may lower a limit, never raise it
        ("open_files = 1000000", "open_files = 1000000 is above the default limit of 256"),
        ("tmp_mb = 102400", "tmp_mb = 102400 is above the default limit of 64"),
    ],
)
def test_a_bad_limits_table(tmp_path: Path, limits: str, needle: str) -> None:
    folder = random_bot(tmp_path, "odd")
    (folder / "bot.toml").write_text(f'name = "odd"\ncommand = ["python3", "bot.py"]\n[limits]\n{limits}\n')
    line = one_error(invoke("match", random_bot(tmp_path, "one"), folder, "--out", tmp_path / "o", "--sandbox", "none"),
                     needle)
    assert "'odd'" in line and "[limits]" in line
    result = invoke("check-bot", folder)
    assert result.exit_code == 1 and result.output.startswith("FAIL manifest: ") and needle in result.output


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("played")
    result = invoke("match", random_bot(tmp, "one"), random_bot(tmp, "two"), "-n", "1", "--out", tmp / "o",
                    "--sandbox", "none")
    assert result.exit_code == 0, result.output
    return tmp / "o" / "replays" / "game-00001.jsonl"


def test_a_replay_cut_in_the_middle_of_a_line(replay: Path, tmp_path: Path) -> None:
    data = replay.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) // 2])
    for args in (["replay", cut], ["replay", "--verify", cut]):
        one_error(invoke(*args), str(cut))
    assert cut.read_bytes() == data[: len(data) // 2]  # reading never changes the file


def test_a_replay_cut_at_a_line_end_does_not_verify(replay: Path, tmp_path: Path) -> None:
    lines = replay.read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[: len(lines) // 2]))
    result = invoke("replay", "--verify", cut)
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1 and str(cut) in result.stderr


def test_a_truncated_gzip_replay(replay: Path, tmp_path: Path) -> None:
    packed = gzip.compress(replay.read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    for args in (["replay", cut], ["replay", "--verify", cut]):
        one_error(invoke(*args), str(cut))


def test_a_league_file_with_a_bad_limit(tmp_path: Path) -> None:
    for name in ("a", "b"):
        random_bot(tmp_path / "bots", name)
    league = tmp_path / "bots" / "league.toml"
    league.write_text('bots = ["a", "b"]\n[limits]\nram = 5\n')
    one_error(invoke("league", league, "--out", tmp_path / "out", "--sandbox", "none", "-n", "2"), "unknown limit 'ram'")
    league.write_text('bots = ["a", "b"]\n[limits]\nopen_files = 99999999\n')
    one_error(invoke("league", league, "--out", tmp_path / "out", "--sandbox", "none", "-n", "2"),
              "limits: limit open_files = 99999999 cannot be applied on this machine")


def test_a_bot_cannot_raise_the_leagues_limit(tmp_path: Path) -> None:
    for name in ("a", "b"):
        random_bot(tmp_path / "bots", name)
    toml = tmp_path / "bots" / "b" / "bot.toml"
    toml.write_text(toml.read_text() + "[limits]\nmemory_mb = 1024\n")
    league = tmp_path / "bots" / "league.toml"
    league.write_text('bots = ["a", "b"]\n[limits]\nmemory_mb = 512\n')
    one_error(invoke("league", league, "--out", tmp_path / "out", "--sandbox", "none", "-n", "2"),
              "bot 'b'", "bot.toml [limits]", "memory_mb = 1024 is above the league's limit of 512")


@pytest.mark.slow
def test_a_results_database_damaged_after_games_keeps_the_games(tmp_path: Path) -> None:
    for name in ("a", "b"):
        random_bot(tmp_path / "bots", name)
    out = tmp_path / "out"
    first = invoke("league", tmp_path / "bots", "--out", out, "--sandbox", "none", "-n", "2", "-j", "1")
    assert first.exit_code == 0, first.output
    database = out / "league.db"
    with sqlite3.connect(database) as db:
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert games >= 2
    saved = database.read_bytes()
    damaged = bytearray(saved)
    damaged[100:4096] = b"\xff" * (4096 - 100)  # past the header: the schema page is garbage
    database.write_bytes(bytes(damaged))
    one_error(invoke("league", tmp_path / "bots", "--out", out, "--sandbox", "none", "-n", "2"), str(database))
    assert database.read_bytes() == bytes(damaged)  # the harness did not overwrite what was there
    database.write_bytes(saved)
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == games
