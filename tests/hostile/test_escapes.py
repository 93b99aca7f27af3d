"""Hostile bot folders that aim at the host around the sandbox: environment, paths, files.

Each case builds its bot folder from ``tests/hostile/bots/<name>`` and plays a short
match against a sample bot, with and without bubblewrap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.bots.manifest import load_bot
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, MatchResult, TableSettings, run_match
from harness.replay.io import read_replay
from harness.replay.verify import verify
from harness.sandbox import hiding, resolve_sandbox

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "bots"
SAMPLES = HERE.parent.parent / "sample_bots"
BWRAP = shutil.which("bwrap")
GCC = shutil.which("gcc") or shutil.which("cc")
PYTHON = os.path.realpath(shutil.which("python3") or "python3")

MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]


def hostile(name: str, dest: Path) -> Path:
    """A copy of the hostile bot folder ``name`` at ``dest``."""
    shutil.copytree(HOSTILE / name, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def play(mode: str, folder: Path, tmp_path: Path, games: int = 2) -> MatchResult:
    """A match of ``games`` between the bot in ``folder`` and sample_bots/random, as `match` runs it."""
    other = tmp_path / "bots" / "random"
    if not other.exists():
        shutil.copytree(SAMPLES / "random", other, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    specs = (load_bot(folder), load_bot(other))
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=10.0, move=2.0),
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    result = run_match(MatchConfig(specs, games, 5, out, settings))
    for replay in result.replays:
        assert verify(read_replay(replay)) is None
    return result


# -- a bot's environment stays inside ----------------------------------------------------


@pytest.mark.skipif(GCC is None, reason="no C compiler (gcc) to build the preloaded library")
@pytest.mark.parametrize("mode", MODES)
def test_ld_preload_from_bot_toml_runs_only_in_the_bots_own_program(mode: str, tmp_path: Path) -> None:
    folder = hostile("ld_preload", tmp_path / "bots" / "ld_preload")
    marker = tmp_path / "loaded-by.txt"
    assert GCC is not None
    subprocess.run(
        [GCC, "-shared", "-fPIC", f'-DMARKER="{marker}"', "-o", str(folder / "evil.so"), str(folder / "evil.c")],
        check=True,
    )
    result = play(mode, folder, tmp_path)
    assert result.games == 2 and not result.faults, result.faults
    loaded = set(marker.read_text().split()) if marker.exists() else set()
    # the wrappers (the cgroup shell, prlimit, env, bwrap) run on the host: never with it
    assert loaded <= {PYTHON}, loaded
    if mode == "none":
        assert loaded == {PYTHON}  # the premise: the library does load, in the bot itself
