"""Fixtures for the HTML pages: real replays and a real league, a hand-made report dict."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from html_support import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _renamed(src: Path, dest: Path, name: str) -> Path:
    """Copy a bot folder and give the copy another name (a match needs distinct names)."""
    shutil.copytree(src, dest)
    toml = dest / "bot.toml"
    lines = [f'name = "{name}"' if line.startswith("name") else line for line in toml.read_text().splitlines()]
    toml.write_text("\n".join(lines) + "\n")
    return dest


@pytest.fixture(scope="session")
def bots(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three bot folders: random, a renamed copy of it, and one that plays illegally in game 1."""
    base = tmp_path_factory.mktemp("bots")
    random_bot = ROOT / "sample_bots" / "random"
    return [
        random_bot,
        _renamed(random_bot, base / "twin", "twin"),
        ROOT / "tests" / "bots" / "illegal",
    ]


@pytest.fixture(scope="session")
def replays(bots: list[Path], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Replay files of a three-game match; game 1 holds a fault."""
    out = tmp_path_factory.mktemp("match")
    run_cli("match", *map(str, bots), "--games", "3", "--seed", "5", "--out", str(out))
    files = sorted((out / "replays").glob("game-*.jsonl"))
    assert len(files) == 3
    return files


@pytest.fixture(scope="session")
def league_dir(bots: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished small league of the three bots and the heuristic one (one fault in game 1)."""
    folder = tmp_path_factory.mktemp("botdir")
    for bot in [*bots, ROOT / "sample_bots" / "heuristic"]:
        shutil.copytree(bot, folder / bot.name)
    out = tmp_path_factory.mktemp("league") / "league"
    run_cli(
        "league", str(folder), "--games", "16", "--table-size", "4", "--jobs", "2",
        "--sandbox", "none", "--out", str(out),
    )
    return out
