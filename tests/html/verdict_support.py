"""Real runs for the verdict report tests, made once per test session and shared by the
page tests and the browser tests (a run is kept under the session's temp folder by name)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
FAST = ("--sandbox", "none", "--jobs", "2")

# A bot that crashes on its first turn of every game, after two lines on stderr.
CRASHY = '''\
import json, sys
game = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "crashy", "version": "1"}), flush=True)
    elif msg["type"] == "game_start":
        game = msg["game"]
    elif msg["type"] == "turn":
        sys.stderr.write(f"crashy: starting game {game}\\ncrashy: out of ideas <b>&amp;\\x1b[2J\\n")
        sys.stderr.flush()
        sys.exit(3)
    elif msg["type"] == "shutdown":
        break
'''


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m harness`` as a subprocess; fails the test on a non-zero exit."""
    done = subprocess.run(
        [sys.executable, "-m", "harness", *map(str, args)], capture_output=True, text=True, check=False, timeout=1800
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def crashy_bot(folder: Path) -> Path:
    """A bot folder whose bot crashes (exit 3) on its first turn of every game."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(CRASHY)
    (folder / "bot.toml").write_text('name = "crashy"\nversion = "1"\ncommand = ["python3", "bot.py"]\n')
    return folder


def copy_bot(src: Path, dest: Path, name: str) -> Path:
    """A copy of a bot folder under another name."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    toml = dest / "bot.toml"
    lines = [f'name = "{name}"' if line.startswith("name") else line for line in toml.read_text().splitlines()]
    toml.write_text("\n".join(lines) + "\n")
    return dest


def _runs(factory: pytest.TempPathFactory) -> Path:
    base = factory.getbasetemp() / "verdict-runs"
    base.mkdir(exist_ok=True)
    return base


def crash_match(factory: pytest.TempPathFactory) -> Path:
    """A match random vs crashy, 8 games: crashy faults in every one (random never lost: a floor)."""
    out = _runs(factory) / "crash-match"
    if not (out / "summary.json").is_file():
        bot = crashy_bot(_runs(factory) / "bots" / "crashy")
        cli("match", SAMPLES / "random", bot, "-n", "8", "--seed", "4", "--move-time", "20", *FAST, "--out", out, "--force")
    return out


def sprt_h1(factory: pytest.TempPathFactory) -> Path:
    """strong vs random --sprt 0,100: H1 after about a dozen deal groups (a few more played)."""
    out = _runs(factory) / "sprt-h1"
    if not (out / "summary.json").is_file():
        cli("match", SAMPLES / "strong", SAMPLES / "random", "--sprt", "0,100", "--games", "200",
            "--seed", "2", *FAST, "--out", out, "--force")
    return out


def undecided(factory: pytest.TempPathFactory) -> Path:
    """Two copies of the random bot until decided, 16 games: never decided."""
    base = _runs(factory)
    out = base / "undecided"
    if not (out / "report.html").is_file():
        folder = base / "twins"
        if not folder.exists():
            copy_bot(SAMPLES / "random", folder / "random", "random")
            copy_bot(SAMPLES / "random", folder / "twin", "twin")
        cli("league", folder, "--until-decided", "--games", "16", "--table-size", "2", "--seed", "3",
            *FAST, "--out", out, "--force")
    return out


def grown(factory: pytest.TempPathFactory) -> Path:
    """A league of a, b, c; then, in revision 1, d joins and a retires."""
    base = _runs(factory)
    out = base / "grown"
    if not (out / "report.html").is_file():
        folder = base / "growing"
        for name in "abc":
            copy_bot(SAMPLES / "random", folder / name, name)
        cli("league", folder, "--games", "6", "--table-size", "3", "--seed", "1", *FAST, "--out", out)
        copy_bot(SAMPLES / "random", folder / "d", "d")
        shutil.rmtree(folder / "a")
        cli("league", folder, "--games", "12", "--table-size", "3", "--seed", "1", *FAST, "--out", out)
    return out


def gauntlet(factory: pytest.TempPathFactory) -> Path:
    """heuristic against a field of random and twin, 8 games."""
    base = _runs(factory)
    out = base / "gauntlet"
    if not (out / "report.html").is_file():
        field, new = base / "field", base / "new"
        if not field.exists():
            copy_bot(SAMPLES / "random", field / "random", "random")
            copy_bot(SAMPLES / "random", field / "twin", "twin")
            copy_bot(SAMPLES / "heuristic", new / "heuristic", "heuristic")
        cli("league", field, "--gauntlet", new / "heuristic", "--games", "8", "--seed", "1", *FAST, "--out", out)
    return out


