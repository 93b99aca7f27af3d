"""The game contract as the conformance suite enforces it: members, chance, the referee's loop."""

from __future__ import annotations

import types
from typing import Any

import pytest

import harness.referee
from harness.commands.common import check_rules, parse_rules
from harness.games import REGISTRY, BadOptions
from harness.games.conformance import ConformanceError, check_game, playout
from harness.games.driver import GAME_MEMBERS
from harness.games.llama_llama import LlamaLlamaGame
from harness.games.llama_llama.state import LlamaLlamaState

GAMES = list(REGISTRY.values())


def _without(game: Any, member: str) -> Any:
    return types.SimpleNamespace(**{m: getattr(game, m) for m in GAME_MEMBERS if m != member})


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@pytest.mark.parametrize("member", ["auditor", "final", "opponents"])
def test_a_game_without_a_member_is_named_not_a_crash(game: Any, member: str) -> None:
    with pytest.raises(ConformanceError, match=f"{game.name}: the game lacks {member} "):
        check_game(_without(game, member), games=1)


class _DealtByThePlay(LlamaLlamaState):
    def _start_round(self, out: Any) -> None:
        seed = self.seed  # the breach: each round's shuffle also depends on the totals so far
        self.seed = seed + sum(self.scores)
        super()._start_round(out)
        self.seed = seed


class _Raises(LlamaLlamaState):
    def apply(self, actions: Any) -> Any:
        if self.round == 2:
            raise ValueError("a bug of the game's own")
        return super().apply(actions)


class _Broken(LlamaLlamaGame):
    def __init__(self, state_class: type[LlamaLlamaState]) -> None:
        self.state_class = state_class

    def new_game(self, options: Any, players: int, seed: int) -> LlamaLlamaState:
        return self.state_class(options, players, seed)


def test_a_deal_that_depends_on_the_play_breaks_the_duplicate_deal_contract() -> None:
    # deterministic (the same seed and play give the same game): only the deal check sees it
    first = playout(_Broken(_DealtByThePlay), 3, 1, policy_seed=1, check=False)
    assert first.lines() == playout(_Broken(_DealtByThePlay), 3, 1, policy_seed=1, check=False).lines()
    with pytest.raises(ConformanceError, match=r"round 2: the deal differs when the players play otherwise"):
        check_game(_Broken(_DealtByThePlay), games=3)


def test_every_game_states_its_deal_round_by_round() -> None:
    for game in GAMES:
        out = playout(game, game.min_players, 4, policy_seed=2, check=False)
        assert sorted(out.deals) == list(range(1, max(out.deals) + 1)), game.name
    assert all(deal is None for deal in playout(REGISTRY["rps"], 2, 4).deals.values())
    assert playout(REGISTRY["llama"], 3, 4).deals[1] is not None


def test_a_game_that_raises_is_a_conformance_error_naming_the_step() -> None:
    with pytest.raises(
        ConformanceError, match=r"step \d+: the game raised ValueError: a bug of the game's own"
    ):
        check_game(_Broken(_Raises), games=1)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_suite_plays_through_the_referees_own_loop(game: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    played = []
    real = harness.referee.play_game

    def counting(*args: Any, **kwargs: Any) -> Any:
        played.append(kwargs["game_no"])
        return real(*args, **kwargs)

    monkeypatch.setattr(harness.referee, "play_game", counting)
    check_game(game, games=2)
    assert len(played) == 2 * 3  # each game: checked, again unchecked, and under other play


def test_rules_on_the_command_line_are_read_and_checked_by_the_game() -> None:
    assert parse_rules(("end_score=30", "variant=komary", "card-set=cards.toml", "x=[1, 2]", "y=true")) == {
        "end_score": 30,
        "variant": "komary",
        "card_set": "cards.toml",
        "x": [1, 2],
        "y": True,
    }
    with pytest.raises(BadOptions, match="--rule 'nothing' is not KEY=VALUE"):
        parse_rules(("nothing",))
    check_rules("llama", {"variant": "komary", "end_score": 30})
    with pytest.raises(BadOptions, match=r"^of llama-llama: unknown rules option 'next_starter'"):
        check_rules("llama-llama", {"next_starter": "rotate"})
    with pytest.raises(BadOptions, match=r"^of llama: variant: 'lizard-spock' is not one of"):
        check_rules("llama", {"variant": "lizard-spock"})
    check_rules("rps", {"variant": "lizard-spock"})
