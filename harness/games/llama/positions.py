"""The positions check-bot feeds a L.L.A.M.A. bot: the edge cases of the rules, three seats each."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.games.base import Position
from harness.games.llama.rules import LLAMA, Deal, Options, Variant, deck
from harness.games.llama.state import LlamaState

PLAYERS = 3


def _deal(hands: Sequence[Sequence[int]], discard: int, stock: Sequence[int] | None = None) -> Deal:
    """A deal with these hands and discard; the stock is the rest of the deck unless given."""
    rest = deck(Variant.STANDARD)
    for card in [discard, *(card for hand in hands for card in hand)]:
        rest.remove(card)  # ValueError: a scenario uses more copies than the deck holds
    if stock is None:
        random.Random(len(rest)).shuffle(rest)
        stock = rest
    return Deal(hands=tuple(tuple(hand) for hand in hands), discard=discard, stock=tuple(stock))


@dataclass(frozen=True)
class Scenario:
    """A position for the bot at ``seat``: a deal, the other seats' moves, a tweak."""

    name: str
    seat: int
    deal: Deal
    before: tuple[dict[str, Any], ...] = ()  # wire actions of the seats before the bot
    legal: tuple[str, ...] = ()  # the legal actions it must see (a self-check)
    tweak: Callable[[LlamaState], None] | None = field(default=None, compare=False)

    def state(self) -> LlamaState:
        state = LlamaState(Options(), PLAYERS, lambda _round: self.deal)
        if self.tweak is not None:
            self.tweak(state)
        return state


def _one_card(state: LlamaState) -> None:
    state.set_hand(0, [3])


SCENARIOS = (
    Scenario(
        "first turn",
        0,
        _deal([(1, 2, 3, 5, 6, 6), (1, 1, 4, 4, 5, 7), (2, 3, 3, 6, 7, 7)], 2),
        legal=("play 2", "play 3", "draw", "quit"),
    ),
    Scenario(
        "only quit is legal",
        2,
        _deal([(2, 2, 3, 4, 5, 6), (1, 1, 2, 3, 4, 5), (1, 1, 2, 5, 6, 7)], 3),
        before=({"action": "quit"}, {"action": "quit"}),
        legal=("quit",),
    ),
    Scenario(
        "last player left in the round (no draw)",
        2,
        _deal([(2, 2, 3, 4, 5, 6), (1, 1, 2, 3, 4, 6), (1, 1, 2, 5, 6, 7)], 4),
        before=({"action": "quit"}, {"action": "quit"}),
        legal=("play 5", "quit"),
    ),
    Scenario(
        "empty stock",
        1,
        _deal([(3, 5, 5, 6, 6, 7), (4, 4, 6, 1, 1, 2), (1, 2, 3, 3, 5, 7)], 2, stock=()),
        before=({"action": "play", "card": 3},),
        legal=("play 4", "quit"),
    ),
    Scenario(
        "a Llama on top",
        0,
        _deal([(7, 1, 3, 5, 5, 2), (2, 2, 3, 4, 6, 6), (1, 3, 4, 4, 5, 6)], LLAMA),
        legal=("play 7", "play 1", "draw", "quit"),
    ),
    Scenario(
        "a 6 on top",
        1,
        _deal([(1, 1, 2, 3, 4, 5), (6, 7, 2, 2, 3, 4), (1, 3, 4, 5, 5, 7)], 6),
        before=({"action": "draw"},),
        legal=("play 6", "play 7", "draw", "quit"),
    ),
    Scenario(
        "one card left",
        0,
        _deal([(3, 1, 1, 4, 4, 5), (2, 2, 5, 6, 6, 7), (1, 3, 4, 5, 6, 7)], 2),
        legal=("play 3", "draw", "quit"),
        tweak=_one_card,
    ),
)


def prepare(scenario: Scenario) -> tuple[LlamaState, dict[str, Any]]:
    """Play the other seats' moves; return the state and the round_start notice for the bot."""
    state = scenario.state()
    notice = {"type": "round_start", "game": 0, **state.round_start_notice(scenario.seat)}
    for wire in scenario.before:
        state.apply([state.parse_action(state.acting()[0], wire)])
    if tuple(state.acting()) != (scenario.seat,):
        raise RuntimeError(f"scenario {scenario.name!r}: seat {scenario.seat} is not to move")
    return state, notice


def positions() -> list[Position]:
    """Every scenario as a fresh check-bot position."""
    out = []
    for scenario in SCENARIOS:
        state, notice = prepare(scenario)
        del notice["game"]  # check-bot numbers its games
        out.append(Position(scenario.name, scenario.seat, state, (notice,), scenario.legal))
    return out


__all__ = ["PLAYERS", "SCENARIOS", "Scenario", "positions", "prepare"]
