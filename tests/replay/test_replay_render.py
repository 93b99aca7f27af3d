"""The text step-through: the whole table sees everything, a seat sees only its own cards."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.games.llama.records import ActionRecord, RoundStartRecord
from harness.games.llama.render import card_name, hand_text
from harness.replay.io import read_replay
from harness.replay.render import render

PLAYERS = 4


@pytest.fixture
def records(tmp_path: Path, play_fake) -> list:
    path = tmp_path / "game.jsonl"
    play_fake(path, players=PLAYERS, seed=21, faults={3: 2})
    return read_replay(path)


def test_card_names() -> None:
    assert [card_name(c) for c in range(1, 8)] == ["1", "2", "3", "4", "5", "6", "L"]
    assert hand_text([7, 3, 1, 3]) == "[1 3 3 L]"


def test_whole_table_shows_every_hand_stock_and_draw(records: list) -> None:
    text = "\n".join(render(records))
    assert len(list(render(records))) == len(records)
    start = records[1]
    assert isinstance(start, RoundStartRecord)
    for hand in start.hands:
        assert hand_text(hand) in text
    assert "stock (top first): " + " ".join(card_name(c) for c in start.stock) in text
    draws = [r for r in records if isinstance(r, ActionRecord) and r.action == "draw"]
    assert draws
    assert text.count("draws ") == len(draws)
    assert len(re.findall(r"draws [1-6L]\b", text)) == len(draws)
    assert "FAULT seat 3 (delta): timeout" in text and "(forced)" in text
    assert "game over after" in text


def _seat_of(line: str) -> int | None:
    match = re.match(r"^\s+(\d) (alpha|bravo|charlie|delta)\b", line)
    return int(match.group(1)) if match else None


@pytest.mark.parametrize("seat", range(PLAYERS))
def test_a_seat_sees_only_its_own_cards(records: list, seat: int) -> None:
    blocks = list(render(records, seat))
    assert len(blocks) == len(records)
    text = "\n".join(blocks)
    assert "stock (top first)" not in text
    assert f"as seen by seat {seat}" in text
    hand_lines = 0
    for line in text.splitlines():
        if "[" in line:  # a hand is printed: it must be this seat's line
            assert _seat_of(line) == seat, line
            hand_lines += 1
        if re.search(r"draws [1-6L]\b", line):
            assert _seat_of(line) == seat, line
    # one hand line per round start, and one per action of this seat
    starts = sum(isinstance(r, RoundStartRecord) for r in records)
    own = sum(isinstance(r, ActionRecord) and r.seat == seat for r in records)
    assert hand_lines == starts + own


def test_a_seat_sees_public_actions(records: list) -> None:
    text = "\n".join(render(records, 0))
    for record in records:
        if isinstance(record, ActionRecord) and record.action == "play" and record.card is not None:
            assert f"plays {card_name(record.card)}" in text
    others = [r for r in records if isinstance(r, ActionRecord) and r.seat != 0]
    assert sum(" cards" in ln for ln in text.splitlines() if _seat_of(ln) not in (None, 0)) == len(others)
