"""Re-simulate a replay through its game's rules and name the first record that disagrees.

Game-neutral: the game's state says who acts, parses each action record's fields,
applies the joint action and gives the records that must follow; every record is
compared with what the rules give.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from harness.games import BadOptions, IllegalAction, InvalidReply, get_game
from harness.games.base import Game, GameState
from harness.protocol.build import game_end_record

_ENVELOPE = {"type", "seat", "forced", "ms"}  # an action record's fields that are the referee's


@dataclass(frozen=True)
class Disagreement:
    index: int  # 1-based record number (= line number of a file without blank lines)
    message: str

    def __str__(self) -> str:
        return f"record {self.index}: {self.message}"


def _body(record: BaseModel) -> dict[str, Any]:
    # the fields the line holds: a default it left out is not there, an explicit null is
    body: dict[str, Any] = record.model_dump(mode="json", exclude_unset=True)
    return body


class _Replay:
    """The rules' side of a replay being checked: the state, the records due, the faults."""

    def __init__(self, game: Game[Any, Any], state: GameState[Any]) -> None:
        self.game = game
        self.state = state
        self.expected: deque[dict[str, Any]] = deque(state.begin().records)
        self.forfeited = [False] * state.players
        self.batch: list[tuple[int, BaseModel, Any]] = []  # the joint action so far

    def action(self, index: int, record: Any) -> str | None:
        state = self.state
        acting = state.acting()
        if not acting:
            return "an action after the game ended"
        seat = acting[len(self.batch)]
        if record.seat != seat:
            return f"seat {record.seat} acts but seat {seat} is to move"
        if record.forced and not self.forfeited[seat]:
            return f"a forced action for seat {seat}, which has no fault"
        if self.forfeited[seat] and not record.forced:
            return f"seat {seat} acts unforced after its fault"
        ms = getattr(record, "ms", None)
        if ms is not None and record.forced:
            return f"a forced action for seat {seat} with a time ({ms} ms): the referee times only answers"
        if ms is not None and not (math.isfinite(ms) and ms >= 0):
            return f"ms {ms} for seat {seat} is not a time"
        fields = {k: v for k, v in _body(record).items() if k not in _ENVELOPE}
        try:
            action = state.parse_action(seat, fields)
        except (IllegalAction, InvalidReply) as err:
            return f"illegal action for seat {seat}: {err}"
        if record.forced and action != state.forced_action(seat):
            return f"a forced {action} for seat {seat}, but the referee forces {state.forced_action(seat)}"
        self.batch.append((index, record, action))
        return None

    def joint(self) -> Disagreement | None:
        """Apply the joint action once every acting seat's record is in."""
        if len(self.batch) < len(self.state.acting()):
            return None
        batch, self.batch = self.batch, []
        try:
            outcome = self.state.apply([action for _, _, action in batch])
        except IllegalAction as err:
            return Disagreement(batch[0][0], f"illegal joint action: {err}")
        for (index, record, _), want in zip(batch, outcome.actions, strict=True):
            got = {k: v for k, v in _body(record).items() if k not in _ENVELOPE}
            if got != want:
                return Disagreement(index, f"action {got} but the rules give {want}")
        self.expected.extend(outcome.records)
        return None

    def end(self, record: Any) -> str | None:
        state = self.state
        if state.acting():
            return "game_end while the game goes on"
        want = game_end_record(self.game.final(state, self.forfeited), self.forfeited)
        del want["type"]
        got = record.model_dump(exclude={"type"})
        if got != want:
            return f"game_end {got} but the rules give {want}"
        return None


def verify(records: Sequence[Any]) -> Disagreement | None:
    """Return the first record that the rules engine disagrees with, or None if all agree."""
    header = records[0]
    if header.type != "header":
        return Disagreement(1, "the first record is not a header")
    game = get_game(header.game)
    try:
        options = game.parse_options(header.options.model_dump())
    except BadOptions as err:
        return Disagreement(1, str(err))
    n = len(header.players)
    if not game.min_players <= n <= game.max_players:
        return Disagreement(1, f"{n} players")
    replay = _Replay(game, game.new_game(options, n, header.seed))
    ended = False
    for index, record in enumerate(records[1:], 2):
        kind = record.type
        if ended:
            return Disagreement(index, f"{kind} after game_end")
        if kind == "fault":
            if record.seat >= n:
                return Disagreement(index, f"a fault for seat {record.seat} in a {n}-player game")
            if replay.forfeited[record.seat]:  # after its fault the seat is forced: no second one
                return Disagreement(index, f"a second fault for seat {record.seat}")
            replay.forfeited[record.seat] = True
            continue
        if kind not in ("action", "game_end", "header"):  # a record of the game's own
            if replay.batch:
                return Disagreement(index, f"{kind} before every acting seat has acted")
            if not replay.expected:
                return Disagreement(index, f"unexpected {kind}")
            want = replay.expected.popleft()
            got = _body(record)
            if got != want:
                shown = {k: v for k, v in got.items() if k != "type"}
                rules = {k: v for k, v in want.items() if k != "type"}
                return Disagreement(index, f"{kind} {shown} but the rules give {want['type']} {rules}")
            continue
        if replay.expected:
            return Disagreement(index, f"{kind} but the rules give {replay.expected[0]['type']} first")
        if kind == "action":
            problem = replay.action(index, record)
            if problem:
                return Disagreement(index, problem)
            disagreement = replay.joint()
            if disagreement:
                return disagreement
        elif kind == "game_end":
            if replay.batch:
                return Disagreement(index, "game_end before every acting seat has acted")
            problem = replay.end(record)
            if problem:
                return Disagreement(index, problem)
            ended = True
        else:  # a second header
            return Disagreement(index, f"unexpected {kind} record")
    if not ended:
        return Disagreement(len(records) + 1, "the replay ends before game_end")
    return None
