"""The one loop stops at a controller's verdict: no game after the verdict's deal group counts.

Once a controller is decided the loop submits nothing more, cancels and stops the
jobs in flight, and discards the games of later groups (results and replays), so the
store holds exactly the groups the verdict was reached on, and a resumed decided run
plays nothing. Timing is recorded for a sequential run as for a fixed one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.bots.manifest import load_bot
from harness.league.config import LeagueConfig
from harness.league.until import Played, run_sequential
from league.conftest import ROOT, cli, db_rows

STRONG, RANDOM = (ROOT / "sample_bots" / name for name in ("strong", "random"))


def _group_of(cluster: str) -> int:
    assert cluster.startswith("d"), cluster
    return int(cluster[1:])


def _replays(out: Path) -> list[Path]:
    return sorted((out / "replays").rglob("game-*.jsonl*"))


def test_an_sprt_match_records_no_game_after_its_verdict_and_a_resume_plays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ("match", STRONG, RANDOM, "--sprt", "0,10", "--games", "2000", "--seed", "3", "--jobs", "2")
    cli(*args, "--sandbox", "none", "--out", out)
    sprt = json.loads((out / "summary.json").read_text())["sprt"]
    assert sprt["result"] == "H1"
    verdict = sprt["groups"] - 1  # the group the test decided at (groups are handed over in order)
    recorded = db_rows(out, "SELECT g.cluster FROM games g JOIN results r USING (game_id)")
    after = [cluster for (cluster,) in recorded if _group_of(cluster) > verdict]
    assert after == []
    # every game of the groups up to the verdict is recorded, and nothing else is scheduled
    assert len(recorded) == sprt["games"] == sprt["games_played"]
    assert db_rows(out, "SELECT count(*) FROM games")[0][0] == sprt["games"]
    assert db_rows(out, "SELECT count(*) FROM jobs WHERE done = 0")[0][0] == 0
    assert len(_replays(out)) == sprt["games"]
    assert not list((out / "replays").rglob("*.part"))
    # the bots' move times are recorded for a sequential run too (once lost by its own loop)
    timed = dict(db_rows(out, "SELECT bot, sum(moves) FROM timing GROUP BY bot"))
    assert set(timed) == {"strong", "random"} and min(timed.values()) > 0

    again = cli(*args, "--sandbox", "none", "--out", out)
    assert f"resumed, {sprt['games']} games already played" in again.stderr
    resumed = json.loads((out / "summary.json").read_text())["sprt"]
    assert (resumed["result"], resumed["games"], resumed["games_played"]) == ("H1", sprt["games"], sprt["games"])
    assert len(db_rows(out, "SELECT game_id FROM results")) == sprt["games"]
    assert len(_replays(out)) == sprt["games"]


class FirstGroupDecides:
    """A controller decided by its first deal group, scheduling four groups of three bots a batch."""

    def __init__(self) -> None:
        self.asked = 0
        self.handed: list[list[int]] = []
        self.resumed: list[tuple[str, ...]] | None = None

    def next_tables(self) -> list[tuple[str, ...]]:
        self.asked += 1
        return [("a", "b", "c")] * 4

    def group_done(self, group: Sequence[Played]) -> None:
        self.handed.append([row.game_id for row in group])

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None:
        self.resumed = list(tables)

    def decided(self) -> bool:
        return bool(self.handed)


def test_a_decided_controller_gets_no_more_groups_and_its_run_resumes_to_nothing(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c"])
    config = LeagueConfig(
        bots=tuple(load_bot(folder / name) for name in ("a", "b", "c")),
        table_size=3,
        games=1000,
        seed=5,
        duplicate=True,
        rules={},
        move_time=30.0,
        startup_time=60.0,
        jobs=2,
        sandbox="none",
        limits={},
    )
    out = tmp_path / "out"
    first = FirstGroupDecides()
    run = run_sequential(config, out, first, identity={"test": "first-group"})
    # six jobs a batch (one a seating), two at a time: the next batch may have started
    # before the verdict (then it was stopped), but nothing is handed over after it
    assert first.asked <= 2 and len(first.handed) == 1
    group = first.handed[0]
    assert len(group) == 6
    assert (run.played, run.recorded, run.groups) == (len(group), len(group), 1)
    assert sorted(game for (game,) in db_rows(out, "SELECT game_id FROM results")) == group
    assert sorted(game for (game,) in db_rows(out, "SELECT game_id FROM games")) == group
    assert db_rows(out, "SELECT count(*) FROM jobs WHERE done = 0")[0][0] == 0
    assert len(_replays(out)) == len(group)

    second = FirstGroupDecides()
    again = run_sequential(config, out, second, identity={"test": "first-group"})
    assert second.resumed == [("a", "b", "c")]  # the verdict's group, the only one left scheduled
    assert second.handed == [group] and second.asked == 0
    assert (again.played, again.recorded) == (0, len(group))
    assert len(_replays(out)) == len(group)
