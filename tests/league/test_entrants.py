"""Entrants with settings: one bot folder entered several times, each with its own name, args and env."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import BOT_PYTHON

from league.conftest import cli, db_rows, standings

FAST = ("--sandbox", "none", "--jobs", "1")

BOT = """\
import json, os, random, sys

sys.stderr.write("SETTINGS " + json.dumps({"argv": sys.argv[1:], "mode": os.environ.get("MODE"),
                                           "base": os.environ.get("BASE")}) + "\\n")
sys.stderr.flush()
rng = random.Random()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "hello", "name": "v", "version": "1"}
    elif msg["type"] == "game_start":
        rng.seed(msg["seed"])
        continue
    elif msg["type"] == "turn":
        reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
    elif msg["type"] == "shutdown":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


def _bot(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(BOT)
    (folder / "bot.toml").write_text(
        f'name = "v"\nversion = "1"\ncommand = ["{BOT_PYTHON}", "bot.py"]\n[env]\nBASE = "kept"\nMODE = "toml"\n'
    )
    return folder


def _league(tmp_path: Path, fast_args: str = '["--fast", "two words"]') -> Path:
    league = tmp_path / "league.toml"
    league.write_text(
        'games = 6\ntable_size = 3\n'
        '[[bots]]\nfolder = "bots/v"\n'
        f'[[bots]]\nfolder = "bots/v"\nname = "v-fast"\nargs = {fast_args}\n'
        '[[bots]]\nfolder = "bots/v"\nname = "v-calm"\nenv = { MODE = "calm" }\n'
    )
    return league


def _settings(out: Path, name: str) -> list[dict[str, object]]:
    log = (out / "logs" / f"{name}.stderr.log").read_text()
    return [json.loads(line.split(" ", 1)[1]) for line in log.splitlines() if line.startswith("SETTINGS ")]


def test_one_folder_enters_three_times_with_its_own_settings_and_resumes(tmp_path: Path) -> None:
    _bot(tmp_path / "bots" / "v")
    league = _league(tmp_path)
    out = tmp_path / "out"
    cli("league", league, "--out", out, *FAST)
    assert sorted(bot["name"] for bot in standings(out)["bots"]) == ["v", "v-calm", "v-fast"]
    # each entrant's processes got its own arguments and environment (over the bot.toml's)
    assert {json.dumps(s) for s in _settings(out, "v")} == {json.dumps({"argv": [], "mode": "toml", "base": "kept"})}
    assert {json.dumps(s) for s in _settings(out, "v-fast")} == {
        json.dumps({"argv": ["--fast", "two words"], "mode": "toml", "base": "kept"})
    }
    assert {json.dumps(s) for s in _settings(out, "v-calm")} == {json.dumps({"argv": [], "mode": "calm", "base": "kept"})}
    # each its own digest: the plain one the folder's, the others the folder's with their settings
    digests = dict(db_rows(out, "SELECT name, digest FROM bots"))
    assert len(set(digests.values())) == 3
    config = json.loads(cli("ratings", out, "--format", "json").stdout)["config"]
    assert config["settings"] == {
        "v-calm": {"args": [], "env": {"MODE": "calm"}},
        "v-fast": {"args": ["--fast", "two words"], "env": {}},
    }
    played = {row[0] for row in db_rows(out, "SELECT DISTINCT bot FROM seats")}
    assert played == {"v", "v-calm", "v-fast"}
    # the same file again: a resume, nothing replayed
    again = cli("league", league, "--out", out, *FAST)
    assert "0 games played" in again.stderr
    # a changed setting is a changed entrant: refused, naming it
    _league(tmp_path, '["--slow"]')
    changed = cli("league", league, "--out", out, *FAST, check=False)
    assert changed.returncode == 2
    assert "bot 'v-fast' changed" in changed.stderr and "--force" in changed.stderr


def _refused(tmp_path: Path, bots: str) -> str:
    league = tmp_path / "bad.toml"
    league.write_text(f"games = 2\n{bots}")
    done = cli("league", league, "--out", tmp_path / "out", *FAST, check=False)
    assert done.returncode == 2, done
    lines = [line for line in done.stderr.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith(f"error: {league}: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("bots", "says"),
    [
        ('bots = ["bots/v", {folder = "bots/v", name = "v"}]', "bots[1].name: 'v' is already the name of bots[0]"),
        ('bots = [{folder = "bots/v", name = "x"}, {folder = "bots/v", name = "x"}]', "bots[1].name: 'x' is already"),
        ('bots = ["bots/v", {folder = "bots/v", name = "w", env = {"A-B" = "1"}}]', "bots[1].env: 'A-B' is not a variable name"),
        ('bots = ["bots/v", {folder = "bots/v", name = "w", env = {"1X" = "1"}}]', "bots[1].env: '1X' is not a variable name"),
        ('bots = ["bots/v", {folder = "bots/v", name = "bad name"}]', "bots[1].name: String should match pattern"),
        ('bots = ["bots/v", {folder = "bots/v", nme = "w"}]', "bots[1].nme: Extra inputs are not permitted"),
        ('bots = ["bots/v", {name = "w"}]', "bots[1].folder: Field required"),
        ('bots = ["bots/v", 3]', "bots[1]: 3 is neither a bot folder (a string) nor a table"),
        ('bots = ["bots/v", {folder = "bots/v", name = "w", args = [1]}]', "bots[1].args.0: Input should be a valid string"),
        ('bots = ["bots/v", {folder = "bots/nowhere", name = "w"}]', "/bots/nowhere: bot folder does not exist"),
    ],
)
def test_a_bad_entrant_is_one_line_naming_the_file_entry_and_field(tmp_path: Path, bots: str, says: str) -> None:
    _bot(tmp_path / "bots" / "v")
    line = _refused(tmp_path, bots + "\n")
    assert "bad.toml: bots[1]" in line and says in line, line


def test_arguments_too_long_to_start_a_bot_are_refused_naming_the_entrant(tmp_path: Path) -> None:
    _bot(tmp_path / "bots" / "v")
    line = _refused(tmp_path, f'bots = ["bots/v", {{folder = "bots/v", name = "w", args = ["{"y" * 70_000}"]}}]\n')
    assert "bots[1] ('w'): command, build and env come to" in line and "over the 64 KiB" in line
