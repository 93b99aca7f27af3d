"""A small simultaneous game for the referee's tests: every seat picks 0-2 at once, three times.

It exercises what L.L.A.M.A. cannot: several acting seats, a joint action, private
notices. Highest total wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.errors import one_line
from harness.games.base import BadOptions, Final, IllegalAction, InvalidReply, Outcome


class PickOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: int = 3

    def to_dict(self) -> dict[str, object]:
        return {"steps": self.steps}


class PickState:
    def __init__(self, players: int, steps: int) -> None:
        self.players = players
        self.scores = [0] * players
        self.round = 1
        self.steps = steps
        self.over = False
        self.adjudicated = False

    def begin(self) -> Outcome:
        return Outcome(records=[{"type": "start", "steps": self.steps}])

    def acting(self) -> tuple[int, ...]:
        return () if self.over else tuple(range(self.players))

    def turn(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, **self.view(seat), "legal": [{"pick": n} for n in range(3)]}

    def legal_actions(self, seat: int) -> list[int]:
        return [] if self.over else [0, 1, 2]

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> int:
        pick = reply.get("pick")
        if type(pick) is not int:
            raise InvalidReply(f"pick: {pick!r} is not an integer")
        if pick not in self.legal_actions(seat):
            raise IllegalAction(f"pick {pick}: must be 0, 1 or 2")
        return pick

    def forced_action(self, seat: int) -> int:
        return 0

    def apply(self, actions: Sequence[int]) -> Outcome:
        if len(actions) != self.players or any(a not in (0, 1, 2) for a in actions):
            raise IllegalAction(f"bad joint action {list(actions)!r}")
        for seat, pick in enumerate(actions):
            self.scores[seat] += pick
        outcome = Outcome(
            actions=[{"pick": pick} for pick in actions],
            records=[{"type": "reveal", "step": self.round, "picks": list(actions)}],
            notices=[(seat, {"type": "picked", "yours": pick}) for seat, pick in enumerate(actions)],
        )
        if self.round == self.steps:
            self.over = True
        else:
            self.round += 1
        return outcome

    def view(self, seat: int) -> dict[str, Any]:
        return {"step": self.round, "scores": list(self.scores)}

    def deal(self) -> None:
        return None  # no chance


class PickGame:
    name = "pick"
    title = "Pick"
    min_players = 2
    max_players = 4
    options_model = PickOptions

    def parse_options(self, raw: Mapping[str, object]) -> PickOptions:
        try:
            return PickOptions.model_validate(dict(raw))
        except ValidationError as err:
            raise BadOptions(one_line(err)) from None

    def new_game(self, options: PickOptions, players: int, seed: int) -> PickState:
        return PickState(players, options.steps)

    def final(self, state: Any, forfeited: Sequence[bool]) -> Final:
        places = [
            len(forfeited)
            if lost
            else 1 + sum(1 for s, o in enumerate(state.scores) if o > score and not forfeited[s])
            for score, lost in zip(state.scores, forfeited, strict=True)
        ]
        return Final(list(state.scores), places, state.adjudicated, state.round)

    def hello_fields(self, options: PickOptions) -> dict[str, Any]:
        return {}

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        return {"reveals": [float(sum(1 for r in records if r["type"] == "reveal"))]}


PICK = PickGame()
