"""One game of rock-paper-scissors: both seats throw at once, hidden until both are in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.base import IllegalAction, InvalidReply, Outcome

from .rules import BEATS, THROWS, Options, Throw, winner

PLAYERS = 2


class RpsState:
    """Two seats, ``options.rounds`` rounds; a round won scores 1. No chance at all."""

    def __init__(self, options: Options, players: int) -> None:
        if players != PLAYERS:
            raise ValueError(f"rock-paper-scissors is for 2 players, got {players!r}")
        self.options = options
        self.players = players
        self.round = 1
        self.scores = [0, 0]
        self.over = False
        self.adjudicated = False
        self.legal = [Throw(name) for name in BEATS[options.variant]]

    def begin(self) -> Outcome:
        return Outcome()

    def acting(self) -> tuple[int, ...]:
        return () if self.over else (0, 1)

    def turn(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "round": self.round,
            "rounds": self.options.rounds,
            "scores": list(self.scores),
            "legal": [throw.wire() for throw in self.legal],
        }

    def legal_actions(self, seat: int) -> list[Throw]:
        return [] if self.over else list(self.legal)

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> Throw:
        throw = reply.get("throw")
        if type(throw) is not str or throw not in THROWS:
            raise InvalidReply(f"throw: {throw!r} is not one of {', '.join(THROWS)}")
        action = Throw(throw)
        if action not in self.legal:
            raise IllegalAction(f"{throw} is not a throw of the {self.options.variant} variant")
        return action

    def forced_action(self, seat: int) -> Throw:
        return self.legal[0]

    def apply(self, actions: Sequence[Throw]) -> Outcome:
        if self.over:
            raise IllegalAction("the game is over")
        if len(actions) != PLAYERS or any(action not in self.legal for action in actions):
            raise IllegalAction(f"not a joint throw: {[str(a) for a in actions]}")
        throws = [action.throw for action in actions]
        won = winner(self.options.variant, throws)
        if won is not None:
            self.scores[won] += 1
        record = {"type": "throws", "round": self.round, "throws": throws, "winner": won}
        notice = {"type": "revealed", "round": self.round, "throws": throws, "scores": list(self.scores)}
        if self.round == self.options.rounds:
            self.over = True
        else:
            self.round += 1
        return Outcome(
            actions=[action.wire() for action in actions],
            records=[record],
            notices=[(seat, dict(notice)) for seat in range(PLAYERS)],
        )

    def deal(self) -> None:
        return None  # no chance: every round's "deal" is the same, trivially
