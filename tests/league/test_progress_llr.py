"""An SPRT's progress line shows the LLR and its bounds; Ctrl-C prints the LLR with the standings."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

from helpers import group_scores, scaled

from harness.league.progress import llr_gauge, sprt_line
from harness.ratings.sprt import Bounds, llr
from league.conftest import ROOT, cli
from league.test_interrupts import start, wait_for_jobs

RANDOM = ROOT / "sample_bots" / "random"
BOUNDS = Bounds(0.0, 10.0)
LINE = re.compile(
    r"(\d+) deal groups, (\d+) games · LLR ([+-]\d+\.\d\d) \(bounds -2\.94, \+2\.94\) H0 \[[-|*]{21}\] H1"
)


def test_the_gauge_puts_the_llr_between_its_bounds() -> None:
    assert llr_gauge(-2.94, -2.94, 2.94) == "H0 [*---------|----------] H1"
    assert llr_gauge(2.94, -2.94, 2.94) == "H0 [----------|---------*] H1"
    assert llr_gauge(0.0, -2.94, 2.94) == "H0 [----------*----------] H1"
    assert llr_gauge(9.0, -2.94, 2.94).endswith("*] H1")  # past a bound: pinned at its end
    assert llr_gauge(1.47, -2.94, 2.94) == "H0 [----------|----*-----] H1"
    assert sprt_line(3, 6, 0.123, BOUNDS.lower, BOUNDS.upper) == (
        "3 deal groups, 6 games · LLR +0.12 (bounds -2.94, +2.94) H0 [----------*----------] H1"
    )


def _group_llrs(out: Path, a: str, b: str) -> list[float]:
    """The LLR after each finished deal group, in group order, recomputed from league.db by SQL."""
    scores = group_scores(out, a, b)
    return [llr(scores[:k], BOUNDS.elo0, BOUNDS.elo1) for k in range(1, len(scores) + 1)]


def test_the_progress_line_shows_the_llr_and_its_bounds(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = cli("match", RANDOM, RANDOM, "--sprt", "0,10", "--games", "16", "--sandbox", "none", "--out", out)
    lines = [LINE.search(line) for line in done.stderr.splitlines()]
    shown = [m for m in lines if m]
    assert shown, done.stderr
    llrs = _group_llrs(out, "random", "random#2")
    for match in shown:  # each line is the test as it stood after that many groups
        groups, games = int(match.group(1)), int(match.group(2))
        assert games == 2 * groups
        want = llrs[groups - 1] if groups else 0.0
        assert match.group(3) == f"{want:+.2f}"


def test_ctrl_c_prints_the_llr_with_the_standings(tmp_path: Path) -> None:
    out, temps = tmp_path / "m", tmp_path / "tmp"
    temps.mkdir()
    args: list[str | Path] = [
        "match", RANDOM, RANDOM, "--sprt", "0,10", "--games", "4000", "--sandbox", "none", "--jobs", "2", "--out", out,
    ]
    proc = start(args, temps)
    try:
        wait_for_jobs(proc, out, 4)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=scaled(60))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "sprt match interrupted by SIGINT" in stderr and "Traceback" not in stderr
    found = re.search(
        r"sprt random vs random#2: LLR ([+-]\d+\.\d\d) \(bounds -(\d\.\d\d), \+(\d\.\d\d)\) after (\d+) deal groups, "
        r"(\d+) games: not decided yet",
        stdout,
    )
    assert found, stdout
    # Wald's bounds at 0.9 alpha, 0.9 beta (3.05), moved inward by at most a quarter for the overshoot
    assert 0.75 * 3.05 <= float(found.group(2)) <= 3.05 and 0.75 * 3.05 <= float(found.group(3)) <= 3.05
    groups = int(found.group(4))
    llrs = _group_llrs(out, "random", "random#2")
    assert groups == len(llrs) > 0 and found.group(5) == str(2 * groups)
    assert found.group(1) == f"{llrs[-1]:+.2f}"
    # the same line in the ratings table, and the number in its JSON
    assert found.group(0) in cli("ratings", out).stdout
    data = json.loads(cli("ratings", out, "--format", "json").stdout)["sprt"]
    assert data["llr"] == round(llrs[-1], 4) and data["result"] == "inconclusive"
