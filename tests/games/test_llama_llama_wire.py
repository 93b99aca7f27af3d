"""Llama Llama's wire and replay models describe exactly what the game sends and records."""

from __future__ import annotations

import pytest

from harness.games.conformance import playout
from harness.games.llama_llama import LLAMA_LLAMA_GAME
from harness.games.llama_llama.wire import RECORD, TO_BOT, ActionReply


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_record_and_message_fits_the_closed_models(players: int) -> None:
    out = playout(LLAMA_LLAMA_GAME, players, 11, policy_seed=players, faults={0: 5})
    kinds = set()
    for seat, item in out.timeline:
        if seat is None:
            RECORD.validate_python(item)
        else:
            TO_BOT.validate_python(item)
            kinds.add(item["type"])
            if item["type"] == "turn":
                for legal in item["legal"]:
                    ActionReply.model_validate({"type": "action", "id": item["id"], **legal})
    assert kinds == {"round_start", "turn", "goals_placed", "reveal", "passed", "round_end"}
    assert any(item.get("forced") for seat, item in out.timeline if seat is None)
    RECORD.validate_python(out.header)


def test_the_hello_carries_the_whole_card_set() -> None:
    options = LLAMA_LLAMA_GAME.parse_options({})
    hello = {
        "type": "hello",
        "protocol": 1,
        "game": "llama-llama",
        **LLAMA_LLAMA_GAME.hello_fields(options),
        "options": options.to_dict(),
        "seat": 0,
        "players": 3,
        "games": 2,
        "time": {"startup_ms": 5000, "move_ms": 1000},
    }
    message = TO_BOT.validate_python(hello)
    assert len(message.options.card_set.cards) == 32  # type: ignore[union-attr]


def test_a_reply_must_name_its_cards() -> None:
    with pytest.raises(ValueError, match="a goal needs a card"):
        ActionReply.model_validate({"type": "action", "id": 1, "action": "goal"})
    with pytest.raises(ValueError, match="a pass needs cards"):
        ActionReply.model_validate({"type": "action", "id": 1, "action": "pass", "card": 3})
    reply = ActionReply.model_validate({"type": "action", "id": 2, "action": "pass", "cards": [3, 4], "x": 1})
    assert reply.cards == [3, 4]


def test_the_text_replay_shows_the_table_or_only_what_a_seat_saw() -> None:
    from harness.games.llama_llama.render import render_text

    out = playout(LLAMA_LLAMA_GAME, 3, 3, policy_seed=1, faults={1: 6}, check=False)
    records = [out.header, *out.records]
    table = "\n".join(render_text(records))
    seat0 = "\n".join(render_text(records, 0))
    assert "the dummy:" in table and "── round 4 ends: " in table and "game over after 4 rounds" in table
    assert "(forced)" in table and "player1 (seat 1): display 1" in table
    assert "as seen by player0 (seat 0)" in seat0 and "chooses a goal card" in seat0
    assert "player1 (seat 1): display 1" not in seat0  # only its own breakdown
    assert "the dummy:" not in seat0 and "→ the dummy:" not in seat0  # no dummy hand, no others' passes
    # neither seat 1's hands nor its breakdown: no line of seat 0's view is about seat 1's cards
    assert not any(line.startswith("   player1 (seat 1): ") for line in seat0.splitlines())
    assert any(line.startswith("   player1 (seat 1): ") for line in table.splitlines())
    assert "round 1 ends: player0 scores" in seat0
