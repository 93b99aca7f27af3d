"""Fixtures for rules tests: a game state built from an explicit deal."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from harness.games.llama import LLAMA_GAME
from harness.games.llama.rules import Deal
from harness.games.llama.state import LlamaState

StateMaker = Callable[..., LlamaState]


def fixed_state(
    hands: Sequence[Sequence[int]],
    discard: int,
    stock: Sequence[int] = (),
    later: Sequence[Deal] = (),
    **options: object,
) -> LlamaState:
    """A game whose round 1 deals ``hands``/``discard``/``stock`` (stock top first).

    Round r > 1 deals ``later[r - 2]`` if given, else the round-1 deal again.
    ``options`` are raw rules options, parsed as a replay header would be.
    """
    first = Deal(hands=tuple(tuple(h) for h in hands), discard=discard, stock=tuple(stock))

    def dealer(round_no: int) -> Deal:
        return later[round_no - 2] if 2 <= round_no < len(later) + 2 else first

    return LlamaState(LLAMA_GAME.parse_options(options), len(hands), dealer)


@pytest.fixture
def table() -> StateMaker:
    """The :func:`fixed_state` helper."""
    return fixed_state
