"""Every message the referee sends and every record it writes validates against the models.

The referee builds messages as plain dicts for speed; these tests keep those dicts and
the pydantic models (the protocol specification) from drifting apart.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.games.llama.records import RECORD
from harness.games.llama.wire import TO_BOT, RoundEnd, RoundStart, Turn
from harness.protocol.messages import GameEnd, GameStart

# (players, seed, options, faults): every table size, both variants, every starter rule
GAMES = [
    (players, seed + offset, options, faults)
    for players in range(2, 7)
    for offset in (0, 1000)
    for seed, options, faults in [
        (1, {}, {}),
        (2, {"variant": "komary"}, {}),
        (3, {"next_starter": "last_play", "end_score": 25}, {0: 2}),
        (4, {"next_starter": "rotate", "max_rounds": 3}, {}),
        (5, {"variant": "komary", "next_starter": "rotate", "end_score": 60}, {1: 1}),
        (6, {"end_score": 1, "max_rounds": 1}, {}),
    ]
]


def _validate(message: dict[str, Any]) -> Any:
    """Validate as a bot would receive it (JSON, strict), and check nothing was dropped or filled in."""
    model = TO_BOT.validate_json(json.dumps(message), strict=True)
    assert model.model_dump(mode="json") == message
    return model


@pytest.mark.parametrize(("players", "seed", "options", "faults"), GAMES)
def test_every_message_to_a_bot_validates(play_fake, players, seed, options, faults) -> None:
    result, seats, _ = play_fake(players=players, seed=seed, options=options, faults=faults)
    assert result.forfeited == [s in faults and seats[s].turns >= faults[s] for s in range(players)]
    for seat, player in enumerate(seats):
        models = [_validate(m) for m in player.messages]
        assert isinstance(models[0], GameStart) and models[0].seat == seat
        kinds = [type(m) for m in models]
        assert RoundStart in kinds
        if result.forfeited[seat]:
            # a faulted seat hears nothing after the turn it failed
            assert kinds[-1] is Turn and kinds.count(Turn) == faults[seat]
            continue
        assert kinds[-1] is GameEnd and kinds.count(GameEnd) == 1
        assert kinds.count(RoundStart) == kinds.count(RoundEnd) == result.rounds
        ids = [m.id for m in models if isinstance(m, Turn)]
        assert ids == list(range(1, len(ids) + 1))
        for model in models:
            if isinstance(model, Turn):
                assert model.seat == seat and model.hand == sorted(model.hand)
                assert len(model.players) == players and model.legal
                assert model.players[seat].cards == len(model.hand)
            if isinstance(model, Turn | RoundEnd):
                # public events never carry a drawn card (extra="forbid" would reject it too)
                assert all(e.model_dump().keys() <= {"seat", "action", "card"} for e in model.events)
            if isinstance(model, RoundStart):
                assert model.players[seat].cards == len(model.hand) == 6


@pytest.mark.parametrize(("players", "seed", "options", "faults"), GAMES[::4])
def test_every_replay_record_validates(play_fake, players, seed, options, faults) -> None:
    _, _, records = play_fake(players=players, seed=seed, options=options, faults=faults)
    for record in records:
        model = RECORD.validate_json(json.dumps(record), strict=True)
        assert model.model_dump(mode="json", exclude_unset=True) == record
    assert records[0]["type"] == "header" and records[-1]["type"] == "game_end"


def test_events_between_turns_are_complete(play_fake) -> None:
    """A seat hears each other seat's action exactly once, in order, via turns and round ends."""
    _, seats, records = play_fake(players=4, seed=17)
    public = []
    for record in records:
        if record["type"] == "action":
            event = {"seat": record["seat"], "action": record["action"]}
            if record["action"] == "play":
                event["card"] = record["card"]
            public.append(event)
    for seat, player in enumerate(seats):
        heard = [e for m in player.messages if m["type"] in ("turn", "round_end") for e in m["events"]]
        # "since your last turn": a seat is told every action but its own, once, in order
        assert heard == [e for e in public if e["seat"] != seat]
