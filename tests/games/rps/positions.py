"""Check-bot's rock-paper-scissors positions: a first throw, a throw after reveals, the last round."""

from __future__ import annotations

from harness.games.base import Position

from .rules import Options, Throw
from .state import RpsState


def _after(rounds: list[tuple[str, str]], name: str, seat: int) -> Position:
    state = RpsState(Options(), 2)
    notices = [message for to, message in state.begin().notices if to == seat]
    for first, second in rounds:
        out = state.apply([Throw(first), Throw(second)])
        notices += [message for to, message in out.notices if to == seat]
    legal = tuple(str(action) for action in state.legal_actions(seat))
    return Position(name, seat, state, tuple(notices), legal)


def positions() -> list[Position]:
    return [
        _after([], "round 1: the first throw", 0),
        _after([("rock", "paper"), ("scissors", "scissors")], "round 3, after a loss and a draw", 1),
        _after([("rock", "scissors")] * 2 + [("paper", "scissors")] * 2, "the last round, level", 0),
    ]
