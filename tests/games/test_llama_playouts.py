"""Property tests over seeded random playouts: invariants hold in every state of every game."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.games import IllegalAction
from harness.games.llama import LLAMA_GAME
from harness.games.llama.rules import DRAW, PLAY, QUIT, Action, Kind, Variant, deck, next_card
from harness.games.llama.state import LlamaState

# "at most 56 + 6 turns" (a turn per card and per player) is too low: a drawn card can
# later be played, so a card may take two turns: draws <= stock, plays <= 6 * players +
# stock, quits <= players.
# Random play reaches 98 turns with 2 players; the true bound is 2 * stock + 7 * players.
MAX_ROUND_TURNS = 110 - 5 * 2
VIEW_KEYS = {"round", "hand", "discard", "stock", "players"}
PLAYER_KEYS = {"cards", "quit", "score"}
PROPERTY = settings(max_examples=300, deadline=None, derandomize=True)


@dataclass
class Playout:
    """Everything one game produced: the chosen actions, every record, and its final state."""

    state: LlamaState
    actions: list[Action] = field(default_factory=list)
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


options_st = st.fixed_dictionaries(
    {
        "variant": st.sampled_from(["standard", "komary"]),
        "next_starter": st.sampled_from(["ender", "last_play", "rotate"]),
        "end_score": st.one_of(st.just(40), st.integers(1, 60)),
        "max_rounds": st.one_of(st.just(50), st.integers(1, 6)),
    }
)
game_st = st.tuples(
    options_st,
    st.integers(2, 6),  # players
    st.integers(0, 2**32),  # deal seed
    st.integers(0, 2**32),  # policy seed
    st.sampled_from([0.02, 0.15, 0.5]),  # how readily the policy quits
)


def choose(rng: random.Random, legal: list[Action], quit_rate: float) -> Action:
    """A random policy that quits with probability ``quit_rate`` (or when nothing else is legal)."""
    others = [a for a in legal if a.kind is not Kind.QUIT]
    if not others or rng.random() < quit_rate:
        return legal[-1]
    return rng.choice(others)


def check_view(state: LlamaState) -> None:
    for seat in range(state.players):
        view = state.view(seat)
        assert set(view) == VIEW_KEYS
        assert view["hand"] == sorted(state.hands[seat])
        assert view["stock"] == len(state.stock) and isinstance(view["stock"], int)
        assert view["discard"] == state.discard and view["round"] == state.round
        assert len(view["players"]) == state.players
        for other, public in enumerate(view["players"]):
            assert set(public) == PLAYER_KEYS
            assert public == {
                "cards": len(state.hands[other]),
                "quit": state.quit[other],
                "score": state.scores[other],
            }


def check_legal(state: LlamaState, seat: int) -> list[Action]:
    """legal_actions and parse_action agree with docs/rules.md, computed here independently."""
    hand, top = state.hands[seat], state.discard
    others_in = sum(not q for s, q in enumerate(state.quit) if s != seat)
    want = [PLAY[c] for c in (top, next_card(top)) if c in hand]
    want += [DRAW] if state.stock and others_in else []
    want += [QUIT]
    legal = state.legal_actions()
    assert legal == want
    for wire in [{"action": "play", "card": c} for c in range(1, 8)] + [
        {"action": "draw"},
        {"action": "quit"},
    ]:
        try:
            parsed = state.parse_action(seat, wire)
        except IllegalAction:
            assert all(a.wire() != wire for a in legal)
        else:
            assert parsed in legal and parsed.wire() == wire
    return legal


def _untyped(record: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in record.items() if k != "type"}


def play(raw: dict[str, object], players: int, seed: int, policy: int, quit_rate: float) -> Playout:
    """Play a whole game, checking every invariant after every action."""
    options = LLAMA_GAME.parse_options(raw)
    state = LLAMA_GAME.new_game(options, players, seed)
    out = Playout(state)
    rng = random.Random(policy)
    full_deck = Counter(deck(options.variant))
    opening = state.begin().records[0]
    out.records.append((opening["type"], _untyped(opening)))
    pile = [state.discard]
    turns = 0
    round_cap = 2 * len(state.stock) + 7 * players
    totals = [0] * players
    limit = options.max_rounds * (MAX_ROUND_TURNS + 1)
    check_view(state)
    while (seat := state.current) is not None:
        assert state.acting() == (seat,)
        assert len(out.actions) < limit, "the game does not end"
        assert not state.quit[seat] and state.hands[seat], "a seat with no turn to take is to move"
        legal = check_legal(state, seat)
        action = choose(rng, legal, quit_rate)
        hand_before = list(state.hands[seat])
        step = state.apply([action])
        out.actions.append(action)
        out.records.append(("action", {"seat": seat, **step.actions[0]}))
        turns += 1
        assert turns <= round_cap <= MAX_ROUND_TURNS
        if action.kind is Kind.PLAY:
            pile.append(action.card or 0)
        for t in step.records:
            out.records.append((t["type"], _untyped(t)))
            if t["type"] == "round_end":
                body = t
                for s in range(players):
                    totals[s] += body["penalties"][s] - body["returned"][s]
                    if body["returned"][s]:
                        assert s == seat and action.kind is Kind.PLAY and hand_before == [action.card]
                assert body["scores"] == totals == state.scores
            else:
                assert t["round"] == state.round
                pile = [t["discard"]]
                turns = 0
                round_cap = 2 * len(t["stock"]) + 7 * players
        in_play = [c for hand in state.hands for c in hand] + state.stock + pile
        assert Counter(in_play) == full_deck
        check_view(state)
    assert state.over and state.legal_actions() == [] and state.acting() == ()
    assert state.round <= options.max_rounds
    reached = max(state.scores) >= options.end_score
    assert state.adjudicated == (not reached)
    if state.adjudicated:
        assert state.round == options.max_rounds
    return out


@PROPERTY
@given(game_st)
def test_random_playouts_keep_every_invariant(game: tuple) -> None:
    play(*game)


@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("next_starter", ["ender", "last_play", "rotate"])
def test_seeded_sweep(players: int, next_starter: str) -> None:
    """A fixed sweep, so every table size meets every rule whatever hypothesis draws."""
    for seed in range(6):
        variant = "komary" if seed % 2 else "standard"
        raw = {"variant": variant, "next_starter": next_starter, "max_rounds": 4 + seed}
        out = play(raw, players, seed, seed, [0.02, 0.15, 0.5][seed % 3])
        assert out.state.round >= 1 and out.actions


@PROPERTY
@given(game_st)
def test_same_seed_and_actions_give_identical_records(game: tuple) -> None:
    raw, players, seed, policy, quit_rate = game
    first = play(raw, players, seed, policy, quit_rate)
    state = LLAMA_GAME.new_game(LLAMA_GAME.parse_options(raw), players, seed)
    records = [(r["type"], _untyped(r)) for r in state.begin().records]
    for action in first.actions:
        seat = state.current
        step = state.apply([action])
        records.append(("action", {"seat": seat, **step.actions[0]}))
        records.extend((t["type"], _untyped(t)) for t in step.records)
    assert records == first.records
    assert state.scores == first.state.scores and state.round == first.state.round


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(2, 6), st.integers(0, 2**32), st.sampled_from(list(Variant)))
def test_the_deal_ignores_what_players_did(players: int, seed: int, variant: Variant) -> None:
    """Duplicate deals: round r's cards depend on the seed and r only."""
    raw = {"variant": variant.value, "end_score": 1000, "max_rounds": 3}
    a = play(raw, players, seed, 1, 0.9)
    b = play(raw, players, seed, 2, 0.05)
    starts_a = [r["hands"] for kind, r in a.records if kind == "round_start"]
    starts_b = [r["hands"] for kind, r in b.records if kind == "round_start"]
    assert starts_a == starts_b and len(starts_a) == 3
