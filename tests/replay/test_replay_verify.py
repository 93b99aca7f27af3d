"""Replays written by the referee verify; every kind of tampering is caught at its record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.games.llama.records import RECORD, ActionRecord, FaultRecord, GameEndRecord, Header
from harness.replay.io import read_replay
from harness.replay.verify import Disagreement, verify


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def first(records: list[dict[str, Any]], **match: object) -> int:
    """Index of the first record whose fields include ``match``."""
    return next(i for i, r in enumerate(records) if all(r.get(k) == v for k, v in match.items()))


@pytest.fixture
def replay(tmp_path: Path, play_fake) -> Path:
    """A 3-player game with plays, draws, quits and several rounds."""
    path = tmp_path / "game.jsonl"
    play_fake(path, players=3, seed=11, options={"next_starter": "last_play"})
    return path


def test_the_fixture_game_is_varied(replay: Path) -> None:
    records = lines_of(replay)
    actions = {r["action"] for r in records if r["type"] == "action"}
    assert actions == {"play", "draw", "quit"}
    assert sum(r["type"] == "round_start" for r in records) >= 2


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
@pytest.mark.parametrize(
    ("players", "seed", "options"),
    [
        (2, 1, {}),
        (3, 2, {"variant": "komary"}),
        (4, 3, {"next_starter": "rotate", "end_score": 15}),
        (5, 4, {"next_starter": "last_play", "max_rounds": 2}),
        (6, 5, {"variant": "komary", "max_rounds": 1}),
    ],
)
def test_referee_replays_verify(tmp_path: Path, play_fake, suffix, players, seed, options) -> None:
    path = tmp_path / f"g{suffix}"
    result, _, written = play_fake(path, players=players, seed=seed, options=options)
    assert not (tmp_path / f"g{suffix}.part").exists()
    records = read_replay(path)
    assert [r.model_dump(exclude_defaults=True) for r in records[1:]] == [
        {k: v for k, v in w.items() if k != "forced" or v} for w in written[1:]
    ]
    assert verify(records) is None
    end = records[-1]
    assert isinstance(end, GameEndRecord)
    assert end.scores == result.scores and end.rounds == result.rounds
    assert end.adjudicated == result.adjudicated
    assert isinstance(records[0], Header) and records[0].options.model_dump() == written[0]["options"]


def test_gzip_and_plain_hold_the_same_records(tmp_path: Path, play_fake) -> None:
    play_fake(tmp_path / "a.jsonl", seed=9)
    play_fake(tmp_path / "a.jsonl.gz", seed=9)
    assert read_replay(tmp_path / "a.jsonl") == read_replay(tmp_path / "a.jsonl.gz")
    assert (tmp_path / "a.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_a_game_with_faults_verifies(tmp_path: Path, play_fake) -> None:
    path = tmp_path / "faults.jsonl"
    result, _, _ = play_fake(path, players=4, seed=3, faults={1: 1, 3: 4})
    records = read_replay(path)
    assert verify(records) is None
    faults = [r for r in records if isinstance(r, FaultRecord)]
    assert [(f.seat, f.kind) for f in faults] == [(1, "timeout"), (3, "timeout")]
    forced = {r.seat for r in records if isinstance(r, ActionRecord) and r.forced}
    assert forced == {1, 3}
    assert result.forfeited == [False, True, False, True]
    assert 1 not in result.winners and 3 not in result.winners


def _check(tmp_path: Path, records: list[dict[str, Any]], index: int, words: str) -> Disagreement:
    problem = verify(read_replay(write_lines(tmp_path / "tampered.jsonl", records)))
    assert problem is not None, "tampering went unnoticed"
    assert problem.index == index, str(problem)
    assert words in problem.message
    assert str(problem).startswith(f"record {index}: ")
    return problem


def test_changed_drawn_card(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="action", action="draw")
    records[i]["drawn"] = records[i]["drawn"] % 7 + 1
    _check(tmp_path, records, i + 1, "but the rules give")


def test_changed_played_card(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="action", action="play")
    records[i]["card"] = records[i]["card"] % 7 + 1
    _check(tmp_path, records, i + 1, f"seat {records[i]['seat']}")


def test_changed_score_in_round_end(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="round_end")
    records[i]["scores"][1] += 1
    _check(tmp_path, records, i + 1, "round_end")


def test_changed_penalty_and_return(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="round_end")
    records[i]["returned"][0] += 1
    records[i]["scores"][0] -= 1
    _check(tmp_path, records, i + 1, "the rules give round_end")


@pytest.mark.parametrize("which", [0, 1])
def test_changed_hand_in_round_start(tmp_path: Path, replay: Path, which: int) -> None:
    records = lines_of(replay)
    starts = [i for i, r in enumerate(records) if r["type"] == "round_start"]
    i = starts[which]
    records[i]["hands"][2][0] = records[i]["hands"][2][0] % 7 + 1
    _check(tmp_path, records, i + 1, "round_start")


def test_changed_stock_order(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    stock = records[1]["stock"]
    j = next(k for k in range(1, len(stock)) if stock[k] != stock[0])
    stock[0], stock[j] = stock[j], stock[0]
    _check(tmp_path, records, 2, "round_start")


def test_swapped_actions(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = next(
        k
        for k in range(len(records) - 1)
        if records[k]["type"] == records[k + 1]["type"] == "action"
        and records[k]["seat"] != records[k + 1]["seat"]
    )
    records[i], records[i + 1] = records[i + 1], records[i]
    _check(tmp_path, records, i + 1, "is to move")


def test_dropped_game_end(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    assert records[-1]["type"] == "game_end"
    _check(tmp_path, records[:-1], len(records), "ends before game_end")


def test_dropped_last_round_end(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = len(records) - 2
    assert records[i]["type"] == "round_end"
    del records[i]
    _check(tmp_path, records, i + 1, "game_end but the rules give round_end first")


def test_forced_without_a_fault(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="action", action="quit")
    records[i]["forced"] = True
    _check(tmp_path, records, i + 1, "no fault")


def test_changed_winners(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    records[-1]["winners"] = [s for s in range(3) if s not in records[-1]["winners"]]
    _check(tmp_path, records, len(records), "game_end")


def test_record_after_game_end(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    records.append(records[-1])
    _check(tmp_path, records, len(records), "after game_end")


def test_extra_action_before_round_end(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="round_end")
    records.insert(i, {"type": "action", "seat": 0, "action": "quit"})
    _check(tmp_path, records, i + 1, "action but the rules give round_end first")


def test_changed_header(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    records[0]["seed"] += 1
    _check(tmp_path, records, 2, "round_start")
    records[0]["seed"] -= 1
    records[0]["players"] = records[0]["players"][:1]
    _check(tmp_path, records, 1, "1 players")


def test_header_not_first() -> None:
    records = [RECORD.validate_python({"type": "action", "seat": 0, "action": "quit"})]
    assert verify(records) == Disagreement(1, "the first record is not a header")


@pytest.fixture
def faulted(tmp_path: Path, play_fake) -> list[dict[str, Any]]:
    """The records of a game where seat 2 faults on its 3rd turn and is forced from then on."""
    path = tmp_path / "faulted.jsonl"
    play_fake(path, players=3, seed=7, faults={2: 3})
    return lines_of(path)


def test_fault_for_a_seat_that_does_not_exist(tmp_path: Path, faulted: list) -> None:
    i = first(faulted, type="fault")
    faulted[i]["seat"] = 4
    _check(tmp_path, faulted, i + 1, "a fault for seat 4 in a 3-player game")


def test_unforced_action_after_a_fault(tmp_path: Path, faulted: list) -> None:
    i = first(faulted, type="action", forced=True)
    del faulted[i]["forced"]
    _check(tmp_path, faulted, i + 1, "seat 2 acts unforced after its fault")


def test_forced_action_other_than_quit(tmp_path: Path, faulted: list) -> None:
    i = first(faulted, type="action", forced=True)
    assert faulted[i]["action"] == "quit"
    faulted[i].update(action="draw", drawn=1)
    _check(tmp_path, faulted, i + 1, "a forced draw for seat 2, but the referee forces quit")


def test_dropped_fault_record(tmp_path: Path, faulted: list) -> None:
    i = first(faulted, type="fault")
    del faulted[i]
    _check(tmp_path, faulted, i + 1, "a forced action for seat 2, which has no fault")


def test_a_second_header_mid_game(tmp_path: Path, replay: Path) -> None:
    records = lines_of(replay)
    i = first(records, type="action")
    records.insert(i + 1, dict(records[0]))
    _check(tmp_path, records, i + 2, "unexpected header record")
