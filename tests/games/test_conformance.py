"""The game conformance suite: every game passes it, and it catches the breaches it is for."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from harness.games import BUILT_IN, REGISTRY
from harness.games.base import IllegalAction
from harness.games.conformance import (
    ConformanceError,
    check_game,
    golden_path,
    golden_text,
    main,
    playout,
    replay_check,
)
from harness.games.llama import LlamaGame, LlamaState
from harness.games.llama.rules import seeded_deal
from harness.games.llama_llama import LLAMA_LLAMA_GAME, LlamaLlamaGame
from harness.games.llama_llama.state import Action, LlamaLlamaState

GOLDEN = Path(__file__).parent / "golden"
GAMES = list(REGISTRY.values())


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_conforms(game: Any) -> None:
    report = check_game(game, games=9)
    # no assumption of rounds or seat counts: every game has at least one decision
    assert report.games == 9 and report.decisions >= 9 and report.steps >= 9
    assert report.games_per_second > 0


# a shipped game must have a golden playthrough; a game registered by the tests has one if it declares it
WITH_GOLDEN = [game for game in GAMES if game.name in BUILT_IN or golden_path(GOLDEN, game.name).is_file()]


@pytest.mark.parametrize("game", WITH_GOLDEN, ids=lambda g: g.name)
def test_the_golden_playthrough_is_unchanged(game: Any) -> None:
    path = golden_path(GOLDEN, game.name)
    assert path.is_file(), f"no golden file: run python -m harness.games.conformance --regenerate {game.name}"
    expected = path.read_text(encoding="utf-8")
    assert golden_text(game) == expected, (
        f"{game.name}'s play changed; if intended, run `python -m harness.games.conformance --regenerate` "
        "and review the diff"
    )


def test_the_regenerate_script_writes_the_golden_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REGISTRY, LLAMA_LLAMA_GAME.name, LLAMA_LLAMA_GAME)
    assert main(["--regenerate", "--golden", str(tmp_path), "llama-llama"]) == 0
    assert (tmp_path / "llama-llama.jsonl").read_text() == golden_path(GOLDEN, "llama-llama").read_text()
    assert main(["no-such-game"]) == 2


# -- broken games: each breach is caught --------------------------------------------------------


class Broken(LlamaLlamaGame):
    """Llama Llama with its state replaced by a broken subclass."""

    def __init__(self, state_class: type[LlamaLlamaState]) -> None:
        self.state_class = state_class

    def new_game(self, options: Any, players: int, seed: int) -> LlamaLlamaState:
        return self.state_class(options, players, seed)


class LeaksAHand(LlamaLlamaState):
    def turn(self, seat: int) -> dict[str, Any]:
        body = super().turn(seat)
        body["hand"] = sorted(self.hands[(seat + 1) % 4])
        return body


class LeaksAFaceDownGoal(LlamaLlamaState):
    def _view(self, seat: int, into: dict[str, Any]) -> dict[str, Any]:  # under view() and turn()
        body = super()._view(seat, into)
        if self.displays and self.revealed < 4:
            body["displays"] = [*body["displays"][:3], {**body["displays"][3], "goal": self.displays[3]}]
        return body


class LeaksOthersPasses(LlamaLlamaState):
    def apply(self, actions: Sequence[Action]) -> Any:
        out = super().apply(actions)
        out.notices = [
            (seat, {**m, "received": m["received"] + m["passed"]} if m["type"] == "passed" else m)
            for seat, m in out.notices
        ]
        for record in out.records:
            if record["type"] == "pass":
                for seat in range(self.players):
                    other = next(mv for mv in record["moves"] if mv["to"] != seat and mv["by"] != seat)
                    out.notices.append(
                        (
                            seat,
                            {
                                "type": "reveal",
                                "round": self.round,
                                "display": 1,
                                "card": other["cards"][0],
                                "count": 0,
                            },
                        )
                    )
        return out


class TakesCardsNotInHand(LlamaLlamaState):
    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> Action:
        if reply.get("action") == "goal" and isinstance(reply.get("card"), int) and reply["card"] > 32:
            return Action("goal", (reply["card"],))
        return super().parse_action(seat, reply)


class AppliesHalf(LlamaLlamaState):
    def apply(self, actions: Sequence[Action]) -> Any:
        if self.phase == "goal":
            self.hands[0] = self.hands[0][1:] + self.hands[0][:1]  # rotates before it checks
        return super().apply(actions)


class Unseeded(LlamaLlamaState):
    def _start_round(self, out: Any) -> None:
        super()._start_round(out)
        self._chance = random.Random()  # the breach itself: the dummies' chance is not from the seed


class ForcesAnIllegal(LlamaLlamaState):
    def forced_action(self, seat: int) -> Action:
        return Action("goal", (99,))


@pytest.mark.parametrize(
    ("state_class", "message"),
    [
        (LeaksAHand, "leaks: cards"),
        (LeaksAFaceDownGoal, "leaks: cards"),
        (LeaksOthersPasses, "leaks: cards"),
        (TakesCardsNotInHand, r"parses to goal 10\d\d, which is not legal"),
        (AppliesHalf, r"a refused apply\(\) changed the state"),
        (ForcesAnIllegal, "the forced action goal 99 of seat 0 is not legal"),
    ],
)
def test_a_breach_is_caught_and_named(state_class: type[LlamaLlamaState], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(Broken(state_class), games=6)


def test_a_game_that_is_not_seeded_is_caught() -> None:
    with pytest.raises(ConformanceError, match="the same seed gave another game"):
        check_game(Broken(Unseeded), games=1)


def test_the_replay_check_names_a_tampered_record() -> None:
    out = playout(LLAMA_LLAMA_GAME, 3, 5, policy_seed=1, check=False)
    replay_check(LLAMA_LLAMA_GAME, out)
    for kind, tamper in (
        (
            "pass",
            lambda r: (
                r["moves"][1]["cards"].reverse()
                or r["moves"][1].update(cards=[1, 2, 3][: len(r["moves"][1]["cards"])])
            ),
        ),
        ("round_end", lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1)),
        ("goals", lambda r: r["displays"].reverse()),
    ):
        bad = copy.deepcopy(out)
        record = next(item for seat, item in bad.timeline if seat is None and item["type"] == kind)
        tamper(record)
        with pytest.raises(ConformanceError, match=r"record \d+: .* but the rules give"):
            replay_check(LLAMA_LLAMA_GAME, bad)


def test_an_illegal_action_in_a_replay_is_named() -> None:
    out = playout(LLAMA_LLAMA_GAME, 2, 5, policy_seed=1, check=False)
    bad = copy.deepcopy(out)
    action = next(item for seat, item in bad.timeline if seat is None and item["type"] == "action")
    action["card"] = 40
    with pytest.raises(ConformanceError, match=r"not a legal record|illegal action"):
        replay_check(LLAMA_LLAMA_GAME, bad)


def test_illegal_joint_actions_are_refused_whole() -> None:
    game = LLAMA_LLAMA_GAME.new_game(LLAMA_LLAMA_GAME.parse_options({}), 2, 1)
    game.begin()
    with pytest.raises(IllegalAction):
        game.apply([game.forced_action(0)])


class _LlamaLeaksAHand(LlamaState):
    def turn(self, seat: int) -> dict[str, Any]:
        body = super().turn(seat)
        body["hand"] = sorted(self.hands[(seat + 1) % self.players])
        return body


class _LlamaLeaksTheStock(LlamaState):
    def turn(self, seat: int) -> dict[str, Any]:
        body = super().turn(seat)
        body["stock"] = list(reversed(self.stock))  # the order, not the count
        return body


class _BrokenLlama(LlamaGame):
    def __init__(self, state_class: type[LlamaState]) -> None:
        self.state_class = state_class

    def new_game(self, options: Any, players: int, seed: int) -> LlamaState:
        return self.state_class(options, players, partial(seeded_deal, options.variant, players, seed))


@pytest.mark.parametrize(
    ("state_class", "message"),
    [(_LlamaLeaksAHand, "leaks: hand"), (_LlamaLeaksTheStock, "leaks: not a closed 'turn' message")],
)
def test_the_llama_auditor_catches_a_leak(state_class: type[LlamaState], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(_BrokenLlama(state_class), games=12)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_check_bot_position_is_a_turn_of_its_seat(game: Any) -> None:
    assert len(game.positions()) >= 1
    for position in game.positions():
        assert position.seat in position.state.acting(), position.name
        labels = tuple(game.action_label(a) for a in position.state.legal_actions(position.seat))
        assert labels == position.legal and labels, position.name
