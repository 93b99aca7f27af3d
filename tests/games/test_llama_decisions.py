"""Every decision of docs/rules.md, one scripted position at a time."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from harness.games import BadOptions, IllegalAction, InvalidReply, get_game
from harness.games.llama import LLAMA_GAME, rules
from harness.games.llama.rules import (
    DRAW,
    LLAMA,
    PLAY,
    QUIT,
    Deal,
    NextStarter,
    Options,
    Variant,
    chip_return,
    deal,
    deck,
    placements,
    seeded_deal,
    shuffle,
)
from harness.games.llama.state import LlamaState

L = LLAMA
FILL = [4, 4, 4, 4, 4, 4]
PINNED_HANDS = ((4, 1, 1, 7, 3, 5), (2, 5, 4, 5, 3, 6))  # seed 7, round 1, two players


# -- cards and the deal ------------------------------------------------------------------


def test_standard_deck_has_56_cards() -> None:
    cards = deck(Variant.STANDARD)
    assert len(cards) == 56
    assert Counter(cards) == {1: 8, 2: 8, 3: 8, 4: 8, 5: 8, 6: 8, L: 8}


def test_komary_deck_has_55_cards_with_7_llamas() -> None:
    cards = deck(Variant.KOMARY)
    assert len(cards) == 55
    assert Counter(cards) == {1: 8, 2: 8, 3: 8, 4: 8, 5: 8, 6: 8, L: 7}


@pytest.mark.parametrize("players", range(2, 7))
def test_deal_six_each_then_the_next_card_is_the_discard(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "shuffle", lambda cards, rng: None)  # the deck as it is
    cards = deck(Variant.STANDARD)
    dealt = deal(Variant.STANDARD, players, random.Random(0))
    assert dealt.hands == tuple(tuple(cards[6 * s : 6 * s + 6]) for s in range(players))
    assert dealt.discard == cards[6 * players]
    assert dealt.stock == tuple(cards[6 * players + 1 :])  # top first


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("players", range(2, 7))
def test_seeded_deal_is_a_shuffled_deck(variant: Variant, players: int) -> None:
    dealt = seeded_deal(variant, players, 12345, 1)
    assert len(dealt.hands) == players and all(len(h) == 6 for h in dealt.hands)
    everything = [c for h in dealt.hands for c in h] + [dealt.discard, *dealt.stock]
    assert Counter(everything) == Counter(deck(variant))


def test_the_shuffle_draws_as_the_standard_library_does() -> None:
    """Deals do not depend on the Python version: our shuffle is 3.11's, drawn for drawn."""
    for seed in range(300):
        ours, theirs = deck(Variant.STANDARD), deck(Variant.STANDARD)
        shuffle(ours, random.Random(f"llama:{seed}:1"))
        random.Random(f"llama:{seed}:1").shuffle(theirs)
        assert ours == theirs
    # and a fixed deal, whatever the interpreter: the first hands of one seed
    assert seeded_deal(Variant.STANDARD, 2, 7, 1).hands == PINNED_HANDS


def test_same_seed_same_deal_and_rounds_differ() -> None:
    a = seeded_deal(Variant.STANDARD, 4, 99, 1)
    assert a == seeded_deal(Variant.STANDARD, 4, 99, 1)
    assert a != seeded_deal(Variant.STANDARD, 4, 99, 2)
    assert a != seeded_deal(Variant.STANDARD, 4, 100, 1)


def test_new_game_deals_from_the_seed() -> None:
    options = LLAMA_GAME.parse_options({})
    state = LLAMA_GAME.new_game(options, 3, 7)
    dealt = seeded_deal(Variant.STANDARD, 3, 7, 1)
    assert state.begin().records == [
        {
            "type": "round_start",
            "round": 1,
            "first": 0,
            "hands": [list(h) for h in dealt.hands],
            "discard": dealt.discard,
            "stock": list(dealt.stock),
        }
    ]
    assert state.current == 0


@pytest.mark.parametrize("players", [0, 1, 7])
def test_player_count_outside_2_to_6_is_refused(players: int) -> None:
    with pytest.raises(ValueError, match=repr(players)):
        LlamaState(Options(), players, lambda r: seeded_deal(Variant.STANDARD, 6, 1, r))


def test_a_deal_that_does_not_fit_is_refused() -> None:
    bad = Deal(hands=((1, 2, 3),) * 2, discard=1, stock=())
    with pytest.raises(ValueError, match="round 1"):
        LlamaState(Options(), 2, lambda r: bad)


# -- turns -------------------------------------------------------------------------------


def test_seat_order_skips_quitters(table) -> None:
    state = table([FILL] * 4, discard=1, stock=[5] * 10)
    state.apply([DRAW])
    assert state.current == 1
    state.apply([QUIT])
    state.apply([DRAW])
    assert state.current == 3
    state.apply([DRAW])
    assert state.current == 0  # wraps
    state.apply([DRAW])
    assert state.current == 2  # seat 1 has quit
    state.apply([QUIT])
    assert state.current == 3


def test_draw_forbidden_when_the_stock_is_empty(table) -> None:
    state = table([FILL, FILL, FILL], discard=1, stock=[6])
    assert DRAW in state.legal_actions()
    state.apply([DRAW])
    assert state.stock == []
    assert state.legal_actions() == [QUIT]
    with pytest.raises(IllegalAction, match="stock is empty"):
        state.parse_action(state.current, {"action": "draw"})


def test_draw_forbidden_when_only_one_player_is_left(table) -> None:
    state = table([FILL, FILL, FILL], discard=1, stock=[6] * 5)
    state.apply([QUIT])
    state.apply([QUIT])
    assert state.current == 2
    assert state.legal_actions() == [QUIT]


def test_stock_is_drawn_top_first_and_never_rebuilt(table) -> None:
    state = table([FILL, FILL], discard=1, stock=[1, 2, 3])
    drawn = [state.apply([DRAW]).actions[0]["drawn"] for _ in range(3)]
    assert drawn == [1, 2, 3]
    assert state.stock == [] and DRAW not in state.legal_actions()


def test_round_ends_at_once_on_playing_out(table) -> None:
    state = table([[1, 4, 4, 4, 4, 4], [2] * 6, FILL], discard=1, stock=[5, 5])
    state.hands[1] = [2]  # seat 1 holds one playable card
    state.apply([PLAY[1]])
    step = state.apply([PLAY[2]])
    types = [t["type"] for t in step.records]
    assert types == ["round_end", "round_start"]
    end = step.records[0]
    assert end["penalties"] == [4, 0, 4]
    assert state.round == 2 and state.current == 1  # seat 2 never got another turn


def test_round_ends_when_everyone_has_quit(table) -> None:
    state = table([FILL, [1] * 6, [L] * 6], discard=1, stock=[5, 5])
    state.apply([QUIT])
    state.apply([QUIT])
    step = state.apply([QUIT])
    assert step.records[0]["type"] == "round_end"
    assert step.records[0] == {
        "type": "round_end",
        "round": 1,
        "penalties": [4, 1, 10],
        "returned": [0, 0, 0],
        "scores": [4, 1, 10],
    }


def test_parse_action_rejects_unknown_shapes(table) -> None:
    state = table([FILL, FILL], discard=1, stock=[5])
    for data, error, message in [
        ({"action": "pass"}, InvalidReply, "unknown action 'pass'"),
        ({}, InvalidReply, "unknown action None"),
        ({"action": "play", "card": 8}, InvalidReply, "no such card 8"),
        ({"action": "play", "card": "4"}, InvalidReply, "no such card '4'"),
        ({"action": "play"}, InvalidReply, "no such card None"),
        ({"action": "play", "card": 6}, IllegalAction, "card not in hand"),
    ]:
        with pytest.raises(error, match=message):
            state.parse_action(state.current, data)


# -- scoring and chip returns ------------------------------------------------------------


@pytest.mark.parametrize(("score", "back"), [(0, 0), (1, 1), (9, 1), (10, 10), (11, 10), (39, 10)])
def test_chip_return_function(score: int, back: int) -> None:
    assert chip_return(score) == back


@pytest.mark.parametrize(("before", "back"), [(0, 0), (1, 1), (9, 1), (10, 10), (25, 10)])
def test_playing_out_returns_a_chip(table, before: int, back: int) -> None:
    state = table([[2, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5]], discard=1, stock=[3])
    state.hands[0] = [2]
    state.scores = [before, 7]
    step = state.apply([PLAY[2]])
    end = step.records[0]
    assert end["penalties"] == [0, 5]
    assert end["returned"] == [back, 0]
    assert end["scores"] == [before - back, 12]


def test_quitting_earns_no_return(table) -> None:
    state = table([[1, 1, 1, 1, 1, 1], FILL], discard=1, stock=[3])
    state.scores = [20, 20]
    state.apply([QUIT])
    step = state.apply([QUIT])
    assert step.records[0]["returned"] == [0, 0]
    assert state.scores == [21, 24]


def test_komary_round_scores_each_llama(table) -> None:
    state = table([[L, L, 1, 1, 1, 1], [L, 2, 2, 2, 2, 2]], discard=3, stock=[3], variant="komary")
    state.apply([QUIT])
    state.apply([QUIT])
    assert state.scores == [21, 12]


# -- who starts the next round -----------------------------------------------------------


def _round_two_starter(table, rule: str, script: list) -> int:
    state = table([[1, 2, 4, 4, 4, 4], FILL, FILL], discard=1, stock=[5] * 5, next_starter=rule)
    opening = state.begin().records[0]
    for action in script:
        state.apply([action])
    assert state.round == 2
    assert opening["first"] == 0  # round 1 always starts at seat 0
    return state.current


# seat 0 plays, 1 quits, 2 draws, 0 quits, 2 quits: ender 2, last play 0, rotate 1
MIXED = [PLAY[1], QUIT, DRAW, QUIT, QUIT]
# nobody plays: 0, 1, 2 quit in turn
ALL_QUIT = [QUIT, QUIT, QUIT]


@pytest.mark.parametrize(
    ("rule", "script", "starter"),
    [
        ("ender", MIXED, 2),
        ("last_play", MIXED, 0),
        ("rotate", MIXED, 1),
        ("ender", ALL_QUIT, 2),
        ("last_play", ALL_QUIT, 2),  # nobody played: falls back to the ender
        ("rotate", ALL_QUIT, 1),
    ],
)
def test_next_starter(table, rule: str, script: list, starter: int) -> None:
    assert _round_two_starter(table, rule, script) == starter


@pytest.mark.parametrize(("rule", "starter"), [("ender", 2), ("last_play", 2), ("rotate", 1)])
def test_next_starter_after_playing_out(table, rule: str, starter: int) -> None:
    state = table([FILL, FILL, [2, 5, 5, 5, 5, 5]], discard=1, stock=[5], next_starter=rule)
    state.hands[2] = [2]
    state.apply([QUIT])
    state.apply([QUIT])
    step = state.apply([PLAY[2]])
    assert step.records[-1]["type"] == "round_start"
    assert step.records[-1]["first"] == starter == state.current
    assert state.quit == [False, False, False]  # quitting does not carry over


def test_rotate_follows_the_previous_starter_not_the_ender(table) -> None:
    state = table([FILL, FILL, FILL], discard=1, stock=[5] * 5, next_starter="rotate")
    for _ in range(3):
        state.apply([QUIT])
    assert state.current == 1
    state.apply([QUIT])  # round 2: seat 1, 2, 0 quit; ender would be 0
    state.apply([QUIT])
    state.apply([QUIT])
    assert state.round == 3 and state.current == 2


def test_last_play_forgets_plays_of_earlier_rounds(table) -> None:
    state = table([[1, 4, 4, 4, 4, 4], FILL, FILL], discard=1, stock=[5] * 5, next_starter="last_play")
    state.apply([PLAY[1]])
    state.apply([QUIT])
    state.apply([QUIT])
    state.apply([QUIT])  # ender 0, last play 0
    assert state.round == 2 and state.current == 0
    state.apply([QUIT])
    state.apply([QUIT])
    state.apply([QUIT])  # round 2: nobody plays; ender 2
    assert state.round == 3 and state.current == 2


# -- end of the game ---------------------------------------------------------------------


def test_end_score_option(table) -> None:
    state = table([FILL, [1] * 6], discard=1, stock=[5], end_score=5)
    state.apply([QUIT])
    state.apply([QUIT])
    assert state.scores == [4, 1] and not state.over
    state.apply([QUIT])
    step = state.apply([QUIT])
    assert state.scores == [8, 2] and state.over and not state.adjudicated
    assert [t["type"] for t in step.records] == ["round_end"]


def test_exactly_the_end_score_ends_the_game(table) -> None:
    state = table([FILL, FILL], discard=1, stock=[5])
    state.scores = [36, 35]
    state.apply([QUIT])
    state.apply([QUIT])
    assert state.scores == [40, 39] and state.over


def test_max_rounds_cap_adjudicates(table) -> None:
    state = table([[1] * 6, [1] * 6], discard=3, stock=[5], max_rounds=3)
    for _ in range(3):
        assert not state.over
        state.apply([QUIT])
        state.apply([QUIT])
    assert state.round == 3 and state.over and state.adjudicated
    assert state.scores == [3, 3] and state.current is None
    with pytest.raises(IllegalAction, match="over"):
        state.apply([QUIT])


def test_end_score_wins_over_the_cap_in_the_last_round(table) -> None:
    state = table([[L] * 6, [1] * 6], discard=3, stock=[5], max_rounds=1, end_score=10)
    state.apply([QUIT])
    state.apply([QUIT])
    assert state.over and not state.adjudicated


@pytest.mark.parametrize(
    ("scores", "forfeited", "want"),
    [
        ([10, 20, 30], [False] * 3, [1, 2, 3]),
        ([5, 5, 7], [False] * 3, [1, 1, 3]),
        ([7, 5, 5, 5], [False] * 4, [4, 1, 1, 1]),
        ([0, 5, 5], [True, False, False], [3, 1, 1]),
        ([0, 1, 2, 3], [True, False, True, False], [3, 1, 3, 2]),
        ([4, 4], [True, True], [1, 1]),
    ],
)
def test_placements(scores: list[int], forfeited: list[bool], want: list[int]) -> None:
    assert placements(scores, forfeited) == want
    state = LLAMA_GAME.new_game(LLAMA_GAME.parse_options({}), len(scores), 1)
    state.scores = list(scores)
    assert LLAMA_GAME.final(state, forfeited).placements == want


# -- options -----------------------------------------------------------------------------


def test_default_options_match_rules_md() -> None:
    options = LLAMA_GAME.parse_options({})
    assert options == Options(Variant.STANDARD, NextStarter.ENDER, 40, 50)
    assert options.to_dict() == {
        "variant": "standard",
        "next_starter": "ender",
        "end_score": 40,
        "max_rounds": 50,
    }
    full = {"variant": "komary", "next_starter": "rotate", "end_score": 7, "max_rounds": 2}
    assert LLAMA_GAME.parse_options(full).to_dict() == full


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"chip_supply": "box"}, "'chip_supply'"),
        ({"Variant": "standard"}, "'Variant'"),
        ({"variant": "polish"}, "variant: 'polish'"),
        ({"variant": None}, "variant: None"),
        ({"next_starter": "youngest"}, "next_starter: 'youngest'"),
        ({"end_score": 0}, "end_score: 0"),
        ({"end_score": -5}, "end_score: -5"),
        ({"end_score": "40"}, "end_score: '40'"),
        ({"end_score": True}, "end_score: True"),
        ({"end_score": 40.0}, "end_score: 40.0"),
        ({"max_rounds": 0}, "max_rounds: 0"),
        ({"max_rounds": None}, "max_rounds: None"),
    ],
)
def test_parse_options_rejects_with_the_field_named(raw: dict, field: str) -> None:
    with pytest.raises(BadOptions) as err:
        LLAMA_GAME.parse_options(raw)
    assert field in str(err.value)


def test_registry() -> None:
    assert get_game("llama") is LLAMA_GAME
    with pytest.raises(KeyError, match="'chess'"):
        get_game("chess")
