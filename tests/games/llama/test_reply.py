"""The hand-written reply check (session envelope + L.L.A.M.A. fields) agrees with the ActionReply model."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from pydantic import ValidationError

from harness.errors import BotFault
from harness.games.base import InvalidReply
from harness.games.llama.state import reply_action
from harness.games.llama.wire import ActionReply
from harness.protocol.session import BotSession

TURN = 5
VALUES: list[Any] = [None, True, False, 0, 1, 3, 7, 8, -1, 3.0, 2.5, "3", "", "play", [], {}, [3], {"x": 1}]


def by_model(line: bytes) -> tuple[int, str, int | None] | None:
    try:
        reply = ActionReply.model_validate_json(line)
    except ValidationError:
        return None
    return reply.id, reply.action, reply.card if reply.action == "play" else None  # ignored otherwise


def by_hand(line: bytes) -> tuple[int, str, int | None] | None:
    session = BotSession(None, startup=1.0, move=1.0)  # type: ignore[arg-type]
    session.last_id = TURN
    try:
        reply = session.take(line)
        assert reply is not None  # no id below TURN is generated: nothing is stale
        action = reply_action(reply)
    except (BotFault, InvalidReply):
        return None
    return reply["id"], action.kind.value, action.card


def replies(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for _ in range(400):
        reply: dict[str, Any] = {"type": "action", "id": TURN, "action": rng.choice(["play", "draw", "quit"])}
        if reply["action"] == "play" or rng.random() < 0.2:
            reply["card"] = rng.randint(1, 7)
        for _ in range(rng.randint(0, 3)):  # mutate: a key changed, dropped or added
            key = rng.choice(["type", "id", "action", "card", "extra"])
            roll = rng.random()
            if roll < 0.3:
                reply.pop(key, None)
            elif key == "type":
                reply[key] = rng.choice(["action", "hello", "Action", None, 1])
            elif key == "action":
                reply[key] = rng.choice(["play", "draw", "quit", "pass", "PLAY", None, 0])
            elif key == "id":
                reply[key] = rng.choice([TURN, TURN + 0.0, True, "5", None, 0, -1])
            else:
                reply[key] = rng.choice(VALUES)
        out.append(reply)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_hand_check_and_model_agree_on_mutated_replies(seed: int) -> None:
    accepted = 0
    for reply in replies(seed):
        line = json.dumps(reply).encode()
        want = by_model(line)
        assert by_hand(line) == want, reply
        accepted += want is not None
    assert 50 < accepted < 350  # both sides of the boundary are exercised


@pytest.mark.parametrize(
    "line",
    [b"[1]", b"42", b"null", b'"draw"', b'{"type":"action","id":5,"action":"draw","card":null}', b"{}"],
)
def test_hand_check_and_model_agree_on_odd_lines(line: bytes) -> None:
    assert by_hand(line) == by_model(line)
