"""Per-bot timing from the CLI: move time median/p99/max, time-outs per 10,000 moves, start-up time."""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import fault_bot

from league.conftest import ROOT, cli, replay_move_times


def slow_bot(folder: Path, seconds: float) -> Path:
    """The random bot, sleeping ``seconds`` before every reply."""
    script = folder / "slow" / "bot.py"
    text = script.read_text().replace("import sys\n", "import sys\nimport time\n", 1)
    text = text.replace('reply = {"type": "action"', f'time.sleep({seconds}); reply = {{"type": "action"', 1)
    assert "time.sleep" in text
    script.write_text(text)
    return folder / "slow"


@pytest.mark.slow
def test_each_bots_move_times_time_outs_and_start_up_everywhere(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["fast", "slow"])
    slow = slow_bot(folder, 0.01)
    hang = fault_bot(tmp_path, "hang")  # hangs on its second turn: one time-out in the match
    out = tmp_path / "out"
    args = ["-n", "6", "--move-time", "0.5", "--out", out, "--sandbox", "none", "--jobs", "2"]
    done = cli("match", folder / "fast", slow, hang, *args)
    assert "move ms med/p99/max" in done.stdout and "t/o per 10k" in done.stdout

    # the exact figures, from the replays' ms
    times = replay_move_times(out)

    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    timing = {bot["name"]: bot["timing"] for bot in data["bots"]}
    for name in ("fast", "slow", "hang"):
        got, exact = timing[name], sorted(times[name])
        assert got["moves"] == len(exact)
        assert got["move_ms"]["median"] == pytest.approx(statistics.median_low(exact), rel=0.03)
        assert got["move_ms"]["max"] == pytest.approx(exact[-1], abs=0.002)
        assert got["move_ms"]["median"] <= got["move_ms"]["p99"] <= got["move_ms"]["max"]
        assert got["startups"] >= 1 and 0 < got["startup_ms"]["median"] <= got["startup_ms"]["max"]
    assert timing["slow"]["move_ms"]["median"] >= 10 > timing["fast"]["move_ms"]["median"]
    assert timing["fast"]["timeouts"] == timing["slow"]["timeouts"] == 0
    assert timing["hang"]["timeouts"] == 1
    assert timing["hang"]["timeouts_per_10k"] == round(10_000 / (timing["hang"]["moves"] + 1), 2)
    assert timing["hang"]["startups"] == 3  # two jobs of 3 games, and a restart after the time-out

    # the same figures in the table, the CSV, the match summary and the HTML report
    table = cli("ratings", out).stdout
    assert "move ms med/p99/max" in table and "start ms" in table
    rows = {row["bot"]: row for row in csv.DictReader(io.StringIO(cli("ratings", out, "--format", "csv").stdout))}
    assert float(rows["slow"]["move_ms_median"]) == timing["slow"]["move_ms"]["median"]
    assert float(rows["hang"]["timeouts_per_10k"]) == timing["hang"]["timeouts_per_10k"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timing"] == timing
    cli("report", out)
    page = (out / "report.html").read_text()
    assert page.count('data-testid="timing"') == 3 and "time-outs per 10,000 moves" in page


def test_a_sequential_run_records_each_bots_timing(tmp_path: Path) -> None:
    # match --sprt and league --until-decided commit their jobs through their own loop: it
    # once dropped the timing, so ratings, summary.json and the report showed no move times
    strong, random = (ROOT / "sample_bots" / name for name in ("strong", "random"))
    out = tmp_path / "m"
    cli("match", strong, random, "--sprt", "0,100", "--games", "40", "--sandbox", "none", "--out", out)
    times = replay_move_times(out)
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    timing = {bot["name"]: bot["timing"] for bot in data["bots"]}
    for name in ("strong", "random"):
        assert timing[name] is not None, name
        assert timing[name]["moves"] == len(times[name]) > 0, name
        assert timing[name]["move_ms"]["max"] == max(times[name]), name
        assert timing[name]["startups"] >= 1, name
