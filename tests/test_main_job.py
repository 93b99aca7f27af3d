"""The README's promises, end to end on the real sample bots (a few tens of seconds).

- a 200-game match of four sample bots finishes, every replay verifies, and
  the strong bot wins clearly more than its share;
- a league of all the sample bots prints ratings with intervals, the strong bot
  first and the random one last, and writes the HTML report.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import scaled

from harness.replay.io import read_replay
from harness.replay.verify import verify

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"


def _installed() -> str:
    """The installed command: the one beside the interpreter running the tests (tox's or a venv's), else PATH's."""
    beside = Path(sys.executable).parent / "llama-harness"
    return str(beside) if os.access(beside, os.X_OK) else "llama-harness"


def run(*args: str | Path, timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [_installed(), *map(str, args)], capture_output=True, text=True, timeout=scaled(timeout), check=False
    )
    assert done.returncode == 0, done.stderr
    return done


def samples(tmp_path: Path) -> Path:
    """A copy of the sample bots: a build or a bot's cache never writes into the checkout."""
    copy = tmp_path / "sample_bots"
    shutil.copytree(SAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__", "bot", "*.o"))
    return copy


@pytest.mark.slow
def test_a_200_game_match_of_four_sample_bots(tmp_path: Path) -> None:
    out = tmp_path / "match"
    copy = samples(tmp_path)
    bots = [copy / name for name in ("strong", "heuristic", "random", "node")]
    run("match", *bots, "--games", 200, "--seed", 1, "--out", out)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 200
    assert summary["faults"] == []
    share = {name: row["win_share"] for name, row in summary["bots"].items()}
    assert share["strong"] > 0.40, share  # its fair share is 0.25
    assert share["strong"] > share["heuristic"] + 0.15, share
    replays = sorted((out / "replays").glob("*.jsonl"))
    assert len(replays) == 200
    for path in replays:
        assert verify(read_replay(path)) is None, path


@pytest.mark.slow
def test_the_main_job_a_league_of_the_sample_bots(tmp_path: Path) -> None:
    out = tmp_path / "league"
    # seeded: one fixed league (every bot is deterministic given its seeds), so that the
    # order checked below cannot come out otherwise by chance; unseeded, strong leads c
    # by ~50 Elo with a standard error of ~15, and one CI run in many had c first
    done = run("league", samples(tmp_path), "--games", 400, "--jobs", 2, "--seed", 1, "--out", out)
    assert "±95%" in done.stdout
    data = json.loads(run("ratings", out, "--format", "json").stdout)
    order = [bot["name"] for bot in data["bots"]]
    assert order[0] == "strong" and order[-1] == "random", order
    assert all(bot["ci95"] > 0 for bot in data["bots"])
    assert data["games"] == sum(1 for _ in (out / "replays").rglob("*.jsonl"))
    assert (out / "report.html").is_file()
