"""Check-bot's Llama Llama positions: states a bot must handle, reached by seeded play.

Each position is a real game played with a seeded random policy until the state asked
for, so its messages are exactly those the referee sends; ``notices`` are every message
the seat got before its turn (``game`` left out).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from harness.games.base import Position
from harness.games.llama_llama.rules import Options
from harness.games.llama_llama.state import PASS, LlamaLlamaState

Want = Callable[[LlamaLlamaState, int], bool]


def _reach(options: Options, name: str, players: int, seat: int, seed: int, want: Want) -> Position:
    state = LlamaLlamaState(options, players, seed)
    notices = [message for to, message in state.begin().notices if to == seat]
    policy = random.Random(seed)
    while not want(state, seat):
        if state.over:
            raise RuntimeError(f"position {name!r}: the game ended before it was reached")
        out = state.apply([policy.choice(state.legal_actions(s)) for s in state.acting()])
        notices += [message for to, message in out.notices if to == seat]
    return Position(name, seat, state, tuple(notices), tuple(str(a) for a in state.legal_actions(seat)))


def _passing(count: int) -> Want:
    return lambda state, seat: state.phase == PASS and state.pass_count == count


def positions(options: Options) -> list[Position]:
    """The positions, with the card set of ``options`` (the shipped one by default)."""
    wanted: list[tuple[str, int, int, int, Want]] = [
        ("round 1, 2 players: choose a goal (two dummies in the ring)", 2, 0, 1, lambda s, _: True),
        ("3 players: pass 1 card after the first reveal", 3, 2, 2, _passing(1)),
        ("4 players: pass 3 cards (35 choices)", 4, 1, 3, _passing(3)),
        (
            "round 2: your goal's display is known, pass",
            3,
            0,
            4,
            lambda s, seat: s.round == 2 and s.phase == PASS and s.known[seat] is not None,
        ),
        (
            "the last pass of the game (4 players, round 4, display 4)",
            4,
            3,
            5,
            lambda s, _: s.round == s.options.max_rounds and s.phase == PASS and s.revealed == 4,
        ),
    ]
    found = []
    for name, players, seat, seed, want in wanted:
        try:
            found.append(_reach(options, name, players, seat, seed, want))
        except RuntimeError:
            continue  # a card set without such a display: the position does not exist
    return found


__all__ = ["positions"]
