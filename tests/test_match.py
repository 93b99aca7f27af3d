"""Table and run_match: seat rotation, restarts after a fault, stale replies, atomic replays, summary."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from helpers import fault_bot, no_bot_processes_left, random_bot, time_limit

from harness.bots.manifest import load_bot
from harness.errors import HarnessError
from harness.games.llama import LLAMA_GAME
from harness.match import (
    Clock,
    MatchConfig,
    Table,
    TableSettings,
    build_bot,
    run_match,
    seating_for,
)
from harness.replay.io import read_replay
from harness.replay.records import Header
from harness.replay.verify import verify
from harness.seeds import deal_seed, derive_seed, seed_secret


def settings(tmp_path: Path, move: float = 5.0) -> TableSettings:
    return TableSettings(
        "llama", LLAMA_GAME.parse_options({"end_score": 25}), Clock(10.0, move), tmp_path / "logs"
    )


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_seats_rotate_evenly(n: int) -> None:
    names = [f"b{i}" for i in range(n)]
    seats = Counter((name, seat) for g in range(2 * n) for seat, name in enumerate(seating_for(names, g)))
    assert seats == Counter({(name, seat): 2 for name in names for seat in range(n)})


def test_derive_seed_is_stable() -> None:
    assert derive_seed(0, 1) == derive_seed("0", "1") != derive_seed(0, 2)
    assert derive_seed(0, 1) == 0xEF134F2A180B  # golden: seeds must not change between versions


def test_a_faulted_bot_restarts_for_the_next_game(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    crasher = load_bot(fault_bot(bots, "crash_mid"))
    other = load_bot(random_bot(bots, "r1"))
    with time_limit(60), Table([crasher, other], settings(tmp_path), games=3) as table:
        first = table.play(1, [crasher.name, other.name], 1, tmp_path / "g1.jsonl")
        assert [f.kind for f in first.faults] == ["crash"]
        assert table.players[crasher.name].proc is None  # stopped at the fault
        second = table.play(2, [other.name, crasher.name], 2, tmp_path / "g2.jsonl")
        third = table.play(3, [crasher.name, other.name], 3, tmp_path / "g3.jsonl")
        assert second.faults == third.faults == []
        assert table.players[crasher.name].starts == 2  # one restart, then one process for two games
        assert table.players[other.name].starts == 1
    assert no_bot_processes_left(bots)


def test_late_duplicate_replies_are_counted_as_stale(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    dup = load_bot(fault_bot(bots, "duplicate"))
    other = load_bot(random_bot(bots, "r1"))
    with time_limit(60), Table([dup, other], settings(tmp_path), games=1) as table:
        result = table.play(1, [dup.name, other.name], 9, tmp_path / "g.jsonl")
        session = table.players[dup.name].session
        assert session is not None
        asked = sum(
            1
            for r in read_replay(tmp_path / "g.jsonl")
            if getattr(r, "seat", None) == 0 and r.type == "action"
        )
        # every reply but the last one was followed by a copy read at the next turn
        assert session.stale == asked - 1
    assert result.faults == []


def test_a_replay_appears_only_when_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bots = tmp_path / "bots"
    specs = [load_bot(random_bot(bots, "r1")), load_bot(random_bot(bots, "r2"))]

    def explode(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    replay = tmp_path / "replays" / "g.jsonl"
    with time_limit(60), Table(specs, settings(tmp_path), games=1) as table:
        monkeypatch.setattr("harness.match.play_game", explode)
        with pytest.raises(KeyboardInterrupt):
            table.play(1, ["r1", "r2"], 1, replay)
    assert not replay.parent.exists() or list(replay.parent.iterdir()) == []  # not even a .part
    assert no_bot_processes_left(bots)


def test_held_replays_are_written_by_a_flush_or_a_clean_exit_and_never_after_an_error(tmp_path: Path) -> None:
    """A league job's table holds its replays: none is on disk before the job ends well."""
    bots = tmp_path / "bots"
    specs = [load_bot(random_bot(bots, "r1")), load_bot(random_bot(bots, "r2"))]
    out = tmp_path / "replays"
    with time_limit(60), Table(specs, settings(tmp_path), games=3, hold_replays=True) as table:
        table.play(1, ["r1", "r2"], 1, out / "g1.jsonl")
        assert not out.exists()  # held
        table.flush()
        assert [p.name for p in out.iterdir()] == ["g1.jsonl"]
        assert verify(read_replay(out / "g1.jsonl")) is None
        table.play(2, ["r2", "r1"], 2, out / "g2.jsonl")
        assert not (out / "g2.jsonl").exists()
    assert (out / "g2.jsonl").exists()  # a clean exit writes what is held

    with pytest.raises(KeyboardInterrupt), time_limit(60), Table(specs, settings(tmp_path), 1, hold_replays=True) as table:
        table.play(3, ["r1", "r2"], 3, out / "g3.jsonl")
        raise KeyboardInterrupt  # the job is cut short: its results are not recorded, nor its replays
    assert sorted(p.name for p in out.iterdir()) == ["g1.jsonl", "g2.jsonl"]
    assert no_bot_processes_left(bots)


def test_run_match_writes_a_summary_and_one_replay_per_game(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    specs = tuple(load_bot(random_bot(bots, f"r{i}")) for i in range(3))
    out = tmp_path / "out"
    seen: list[int] = []
    with time_limit(60):
        result = run_match(MatchConfig(specs, 4, 42, out, settings(out)), lambda n, _: seen.append(n))
    assert seen == [1, 2, 3, 4]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 4 and summary["seed"] == 42 and summary["faults"] == []
    assert summary["options"]["end_score"] == 25
    assert sorted(summary["bots"]) == ["r0", "r1", "r2"]
    assert all(tally["games"] == 4 for tally in summary["bots"].values())
    assert sum(tally["wins"] for tally in summary["bots"].values()) == pytest.approx(4, abs=0.01)
    assert [Path(p).name for p in summary["replays"]] == [f"game-{i:05d}.jsonl" for i in range(1, 5)]
    assert sorted(p.name for p in (out / "replays").iterdir()) == [f"game-{i:05d}.jsonl" for i in range(1, 5)]
    for number, path in enumerate(summary["replays"], 1):
        records = read_replay(path)
        header = records[0]
        assert isinstance(header, Header)
        assert header.match == number and header.seed == deal_seed(seed_secret(42), number)
        assert [p.name for p in header.players] == seating_for(["r0", "r1", "r2"], number - 1)
        assert verify(records) is None
    assert result.games == 4
    assert no_bot_processes_left(out)  # bots run from their snapshots in out/bots


def test_the_same_seed_gives_the_same_games(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    specs = tuple(load_bot(random_bot(bots, f"r{i}")) for i in range(2))
    texts = []
    for run in ("a", "b"):
        out = tmp_path / run
        with time_limit(60):
            run_match(MatchConfig(specs, 2, 7, out, settings(out)))
        # timings differ between runs; everything else must not
        texts.append(
            [
                [
                    {k: v for k, v in json.loads(line).items() if k != "ms"}
                    for line in p.read_text().splitlines()
                ]
                for p in sorted((out / "replays").iterdir())
            ]
        )
    assert texts[0] == texts[1]


def test_a_failing_build_is_a_harness_error(tmp_path: Path) -> None:
    bot = tmp_path / "built"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "built"\ncommand = ["./run"]\nbuild = ["sh", "-c", "echo nope; exit 3"]\n'
    )
    spec = load_bot(bot)
    with pytest.raises(HarnessError, match=r"'built': build failed with exit 3"):
        build_bot(spec, tmp_path / "logs")
    assert (tmp_path / "logs" / "built.build.log").read_text() == "nope\n"


def test_a_build_that_makes_no_command_is_a_harness_error(tmp_path: Path) -> None:
    bot = tmp_path / "built"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "built"\ncommand = ["./run"]\nbuild = ["true"]\n')
    with pytest.raises(HarnessError, match="not an executable file"):
        build_bot(load_bot(bot), tmp_path / "logs")
