"""Memory: a bot is limited in what it uses, not in what it maps, so real runtimes start.

A JVM reserves far more address space than it uses: under an address-space limit of
2 GiB (RLIMIT_AS) neither javac nor java can start. With a memory cgroup both run
under the default 2048 MB; where there is none, memory is bounded by RLIMIT_DATA
(tests/hostile/test_nonroot.py: a JVM bot builds and plays under it, and one that
cannot start is told which limits were in force).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness import cgroups
from harness.bots.manifest import load_bot
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, MatchResult, TableSettings, run_match
from harness.sandbox import hiding, resolve_sandbox

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "sample_bots"
BWRAP = shutil.which("bwrap")
JAVA, JAVAC = shutil.which("java"), shutil.which("javac")
MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]
needs_java = pytest.mark.skipif(
    JAVA is None or JAVAC is None, reason="no Java here (java and javac are not installed)"
)
needs_memory_cgroup = pytest.mark.skipif(
    "memory" not in cgroups.available(), reason="no writable memory cgroup controller here (needs root)"
)


def _play(tmp_path: Path, mode: str, folder: Path, games: int = 2) -> MatchResult:
    other = tmp_path / "bots" / "random"
    shutil.copytree(SAMPLES / "random", other, ignore=shutil.ignore_patterns("__pycache__"))
    specs = (load_bot(folder), load_bot(other))
    out = tmp_path / "out"
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({"end_score": 25}),
        clock=Clock(startup=30.0, move=5.0),  # a cold JVM on a busy machine
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    return run_match(MatchConfig(specs, games, 1, out, settings))


@needs_java
@needs_memory_cgroup
@pytest.mark.parametrize("mode", MODES)
def test_a_jvm_bot_builds_and_plays_under_the_default_limits(mode: str, tmp_path: Path) -> None:
    folder = shutil.copytree(HERE / "bots" / "jvm", tmp_path / "bots" / "jvm")
    result = _play(tmp_path, mode, folder)  # javac runs as the build, java as the bot
    assert not (folder / "Bot.class").exists()  # built on a copy: the class is in the bot's snapshot
    assert [p.parent.parent.name for p in (tmp_path / "out" / "bots").glob("*/Bot.class")] == ["bots"]
    assert result.games == 2 and result.faults == [], result.faults


@needs_memory_cgroup
@pytest.mark.parametrize("mode", MODES)
def test_a_bot_over_its_memory_is_killed_and_told_so(mode: str, tmp_path: Path) -> None:
    folder = shutil.copytree(HERE / "bots" / "alloc_10g", tmp_path / "bots" / "alloc_10g")  # memory_mb = 128
    result = _play(tmp_path, mode, folder, games=1)
    details = [fault["detail"] for fault in result.faults if fault["bot"] == "alloc-10g"]
    assert details and "it used all of its 128 MB memory limit" in details[0], details
