"""CPU fairness: what one bot spawns cannot slow another bot's clock.

The cpu_hog bot starts 40 busy children, each in its own session, at hello; the
thinker beside it needs 100 ms of CPU a move. The table is pinned to one core, as a
league worker is. Sharing the core process by process, the thinker would need over
4 s a move; shared bot by bot, 200 ms — the 2.5 s limit (stretched by the load
average per core, as every bound in this suite: other processes on the core slow the
thinker either way, the hog's forty children only without the cgroup) leaves room for
the rest of a busy machine (bench/clocks.py measures the 150 ms case).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import scaled

from harness import cgroups
from harness.bots.manifest import load_bot
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, TableSettings, run_match
from harness.replay.io import read_replay
from harness.replay.records import ActionRecord, Header
from harness.sandbox import hiding, resolve_sandbox

HERE = Path(__file__).resolve().parent
BWRAP = shutil.which("bwrap")
MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]


@pytest.mark.skipif(
    "cpu" not in cgroups.available(),
    reason="no writable cpu cgroup controller here (needs root, or a delegated cgroup v2 with cpu)",
)
@pytest.mark.parametrize("mode", MODES)
def test_forty_busy_children_do_not_make_the_other_bot_time_out(mode: str, tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    for name in ("cpu_hog", "thinker"):
        shutil.copytree(HERE / "bots" / name, bots / name)
    toml = bots / "thinker" / "bot.toml"
    toml.write_text(toml.read_text() + '[env]\nTHINK_MS = "100"\n')
    specs = (load_bot(bots / "cpu_hog"), load_bot(bots / "thinker"))
    out = tmp_path / "out"
    limit = scaled(2.5)  # 2.5 s on an idle machine
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({"end_score": 25}),
        clock=Clock(startup=scaled(10.0), move=limit),
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    pinned = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(pinned)})  # one core for the referee and both bots
    try:
        result = run_match(MatchConfig(specs, 2, 3, out, settings))
    finally:
        os.sched_setaffinity(0, pinned)
    assert [f for f in result.faults if f["bot"] == "thinker"] == []
    assert result.faults == [], result.faults
    times = []
    for replay in result.replays:
        records = read_replay(replay)
        assert isinstance(records[0], Header)
        seat = next(i for i, p in enumerate(records[0].players) if p.name == "thinker")
        times += [r.ms for r in records if isinstance(r, ActionRecord) and r.seat == seat and r.ms is not None]
    assert times and max(times) < limit * 1000.0
    assert min(times) >= 95.0  # the premise: it does think for 100 ms of CPU a move
    # every group of this process is gone with its bot
    for hierarchy in cgroups.hierarchies():
        for name in ("cpu-hog", "thinker"):
            mine = list((hierarchy.root / cgroups.PARENT).glob(f"{os.getpid()}-*-{name}"))
            assert mine == [], mine
