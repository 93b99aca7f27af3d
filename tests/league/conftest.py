"""Fixtures for league tests: small fast bots (copies of sample_bots/random) and a CLI runner."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import scaled

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "random"


def make_bots(folder: Path, names: list[str]) -> Path:
    """Copy the random sample bot under each name into ``folder``; return ``folder``."""
    for name in names:
        target = folder / name
        shutil.copytree(RANDOM_BOT, target, ignore=shutil.ignore_patterns("__pycache__"))
        text = (target / "bot.toml").read_text()
        (target / "bot.toml").write_text(text.replace('name = "random"', f'name = "{name}"'))
    return folder


@pytest.fixture
def bots(tmp_path: Path) -> Callable[[list[str]], Path]:
    def make(names: list[str]) -> Path:
        return make_bots(tmp_path / "bots", names)

    return make


# A hang guard, not a speed test: a league that takes 30 s idle can take minutes on a
# shared, loaded machine; only a real hang should reach this.
HANG_GUARD = 900.0


def cli(*args: str | Path, check: bool = True, timeout: float = 0.0) -> subprocess.CompletedProcess[str]:
    """Run ``python -m harness`` as a subprocess (a real league process: pools, signals).

    Killed after :data:`HANG_GUARD` seconds, or ``timeout`` scaled by the load when that
    is longer (subprocess.TimeoutExpired then fails the test).
    """
    done = subprocess.run(
        [sys.executable, "-m", "harness", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=max(HANG_GUARD, scaled(timeout)),
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}")
    return done


def standings(folder: Path) -> dict[str, Any]:
    """The league's report data without the run settings (jobs, sandbox, folders), dates and timings."""
    data: dict[str, Any] = json.loads(cli("ratings", folder, "--format", "json").stdout)
    data.pop("config")
    for bot in data["bots"]:
        assert bot.pop("timing") is None or bot["games"] > 0
    for revision in data.pop("revisions"):
        assert revision["at"] is None or revision["at"].endswith("Z")
    return data


def replay_move_times(out: Path) -> dict[str, list[float]]:
    """Each bot's move times (``ms``) as the replays in ``out/replays`` record them, forced moves left out."""
    times: dict[str, list[float]] = {}
    for replay in sorted((out / "replays").rglob("*.jsonl")):
        records = [json.loads(line) for line in replay.read_text().splitlines()]
        names = [p["name"] for p in records[0]["players"]]
        for record in records:
            if record["type"] == "action" and "ms" in record and not record.get("forced"):
                times.setdefault(names[record["seat"]], []).append(record["ms"])
    return times


def db_rows(folder: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{folder / 'league.db'}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()
