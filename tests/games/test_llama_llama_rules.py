"""Llama Llama: every rule of the published game, one scripted position at a time."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from llama_llama_support import card_set_dict, state, with_hands

from harness.games import IllegalAction, InvalidReply
from harness.games.llama_llama import LLAMA_LLAMA_GAME
from harness.games.llama_llama.cards import parse_card_set
from harness.games.llama_llama.rules import place_goals, placements, ring_of, score_hand, times
from harness.games.llama_llama.state import GOAL, OVER, PASS, Action

GAME = LLAMA_LLAMA_GAME


def need(combo: str) -> list[tuple[str, int]]:
    return sorted(Counter(combo).items())


# -- scoring -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "combo", "expected"),
    [
        ("AABB", "AABB", 1),
        ("AABB", "AA", 1),
        ("DDFF", "DF", 2),
        ("DFF", "DF", 1),
        ("DDDF", "DD", 1),
        ("DDDDF", "DD", 2),
        ("ABC", "AABB", 0),
        ("AAAABBBB", "AABB", 2),
        ("ABCD", "ABCD", 1),
    ],
)
def test_a_card_is_used_once_within_one_combination(hand: str, combo: str, expected: int) -> None:
    assert times(need(combo), Counter(hand)) == expected


def test_a_hand_scores_every_goal_on_its_own_and_rules_may_reuse_cards() -> None:
    faces = [
        ("A", "A", 1, "AABB", 10),  # 1: top A=1, bottom AABB=10
        ("A", "B", 2, "AA", 7),  # 2: top B=2, bottom AA=7
        ("B", "A", 1, "AABB", 10),  # 3: the same faces as card 1: a duplicate goal
        ("B", "C", 5, "DF", 3),  # 4: top C=5, bottom DF=3
        ("D", "Z", 0, "ZZ", 0),
        ("D", "Z", 0, "ZZ", 0),
        ("F", "Z", 0, "ZZ", 0),
        ("F", "Z", 0, "ZZ", 0),
    ]
    cards = parse_card_set(card_set_dict(faces)).cards
    hand = [1, 2, 3, 5, 6, 7, 8]  # A A B D D F F
    got = score_hand(hand, [1, 2, 3, 4], cards)
    assert [(g.display, g.card, g.top, g.bottom) for g in got] == [
        (1, 1, 2, 0),  # two As; AABB needs two Bs, the hand has one
        (2, 2, 2, 7),  # one B; AA once (the same As also scored card 1's top rule)
        (3, 3, 2, 0),  # the duplicate of card 1 scores again, independently
        (4, 4, 0, 6),  # no C; DDFF holds DF twice
    ]
    hand_aabb = [1, 2, 3, 4, 9, 10, 11]  # A A B B + 3 fillers
    assert [(g.top, g.bottom) for g in score_hand(hand_aabb, [1, 2], cards)] == [(2, 10), (4, 7)]


# -- the ring, the dummy and the placement ------------------------------------------------------


def test_the_passing_ring_places_the_dummies() -> None:
    assert ring_of(4, None) == [0, 1, 2, 3]
    assert ring_of(2, None) == [0, 2, 1, 3]  # seat 0, dummy, seat 1, dummy
    assert ring_of(3, 1) == [0, 3, 1, 2]  # the dummy right of seat 1: seat 0 passes to it
    assert ring_of(3, 2) == [0, 1, 3, 2]
    assert ring_of(3, 0) == [0, 1, 2, 3]  # right of seat 0 = after seat 2


def test_from_round_two_the_three_player_dummy_sits_right_of_the_lowest_total() -> None:
    game = state(3, seed=4, max_rounds=3)
    while game.round < 2:
        game.apply([game.forced_action(seat) for seat in game.acting()])
    low = min(range(3), key=lambda seat: game.scores[seat])
    if game.scores.count(game.scores[low]) == 1:
        ring = game.ring
        assert ring[(ring.index(3) + 1) % 4] == low  # left of the dummy is the lowest total


def test_the_dummy_place_of_a_tie_is_random_among_the_tied() -> None:
    from harness.games.llama_llama.rules import dummy_place

    places = {dummy_place(3, 2, [10, 4, 4], random.Random(seed)) for seed in range(40)}
    assert places == {1, 2}
    assert dummy_place(3, 5, [3, 9, 7], random.Random(0)) == 0
    assert dummy_place(2, 2, [0, 0], random.Random(0)) is None


def test_round_two_places_goals_by_standing_and_ties_are_shuffled() -> None:
    card_set = parse_card_set(card_set_dict(marked=(2, 4)))
    goals = [11, 12, 13, 14]
    seen = set()
    for seed in range(30):
        owners, known = place_goals(card_set, 4, 2, goals, [10, 30, 20, 30], random.Random(seed))
        assert owners[2:] == [2, 0] and set(owners[:2]) == {1, 3}
        assert known == [4, None, 3, None]  # a tied player does not know its display
        seen.add(tuple(owners[:2]))
    assert len(seen) == 2
    # 3 players: the dummy (holder 3) takes marked display 2; the other marked one is free
    owners, known = place_goals(card_set, 3, 2, goals, [5, 9, 7], random.Random(0))
    assert owners == [1, 3, 2, 0] and known == [4, 1, 3]
    # 2 players: the dummies take displays 2 and 4, the leader display 1
    owners, known = place_goals(card_set, 2, 3, goals, [8, 12], random.Random(0))
    assert owners == [1, 2, 0, 3] and known == [3, 1]


def test_round_one_shuffles_the_goals_and_no_player_knows_its_display() -> None:
    card_set = parse_card_set(card_set_dict())
    orders = {
        tuple(place_goals(card_set, 4, 1, [1, 2, 3, 4], [0] * 4, random.Random(s))[0]) for s in range(50)
    }
    assert len(orders) > 10
    assert place_goals(card_set, 4, 1, [1, 2, 3, 4], [0] * 4, random.Random(0))[1] == [None] * 4


# -- a round --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_round_keeps_every_card_once_and_hands_of_seven(players: int) -> None:
    game = state(players, seed=players)
    assert [len(hand) for hand in game.hands] == [8] * 4
    rng = random.Random(players)
    game.apply([rng.choice(game.legal_actions(seat)) for seat in game.acting()])
    assert [len(hand) for hand in game.hands] == [7] * 4
    while game.round == 1 and not game.over:
        assert game.phase == PASS and game.pass_count > 0
        before = [list(hand) for hand in game.hands]
        actions = [rng.choice(game.legal_actions(seat)) for seat in game.acting()]
        out = game.apply(actions)
        passed = next(r for r in out.records if r["type"] == "pass")
        if game.round != 1:
            break  # the last pass ended the round: the hands are dealt anew
        for seat, action in enumerate(actions):
            got = [c for m in passed["moves"] if m["to"] == seat for c in m["cards"]]
            assert sorted(game.hands[seat]) == sorted((set(before[seat]) - set(action.cards)) | set(got))
        assert [len(hand) for hand in game.hands] == [7] * 4
        assert sorted([c for h in game.hands for c in h] + game.displays) == list(range(1, 33))


def test_a_pass_goes_left_and_a_dummy_passes_on_random_cards() -> None:
    game = state(2, seed=9)
    game.apply([game.forced_action(0), game.forced_action(1)])
    k = game.pass_count
    dummy_before = list(game.hands[2])
    given0, given1 = game.forced_action(0), game.forced_action(1)
    out = game.apply([given0, given1])
    moves = next(r for r in out.records if r["type"] == "pass")["moves"]
    assert [(m["by"], m["to"]) for m in moves] == [(0, 2), (2, 1), (1, 3), (3, 0)]
    assert moves[0]["cards"] == list(given0.cards)
    assert len(moves[1]["cards"]) == k
    assert set(moves[1]["cards"]) <= set(dummy_before) | set(given0.cards)
    notices = {seat: m for seat, m in out.notices if m["type"] == "passed"}
    assert notices[0]["passed"] == list(given0.cards)
    assert notices[0]["received"] == sorted(moves[3]["cards"])
    assert notices[1]["received"] == sorted(moves[1]["cards"])


def test_a_display_passing_nothing_asks_nothing() -> None:
    game = state(4, seed=3, card_set=card_set_dict(four=(0, 0, 2, 0)))
    out = game.apply([game.forced_action(seat) for seat in game.acting()])
    reveals = [r["display"] for r in out.records if r["type"] == "reveal"]
    assert reveals == [1, 2, 3] and game.phase == PASS and game.pass_count == 2
    out = game.apply([game.forced_action(seat) for seat in game.acting()])
    assert [r["type"] for r in out.records][:3] == ["pass", "reveal", "round_end"]


def test_goal_choice_is_secret_and_dummies_add_one_each() -> None:
    game = state(3, seed=2)
    out = game.apply([game.forced_action(seat) for seat in game.acting()])
    goals = next(r for r in out.records if r["type"] == "goals")
    assert len(goals["chosen"]) == 4 and sorted(goals["owners"]) == [0, 1, 2, 3]
    placed = [m for _, m in out.notices if m["type"] == "goals_placed"]
    assert [m["goal_display"] for m in placed] == [None, None, None]  # round 1 is shuffled
    assert game.view(0)["displays"][1]["goal"] is None  # face down until its reveal
    assert game.view(0)["displays"][0]["goal"] == goals["displays"][0]


def test_the_game_ends_at_the_end_score_or_after_max_rounds() -> None:
    game = state(4, seed=1, end_score=1)
    while not game.over:
        game.apply([game.forced_action(seat) for seat in game.acting()])
    assert game.round == 1 or max(game.round_scores[0]) == 0
    assert game.phase == OVER and game.acting() == () and not game.adjudicated
    game = state(2, seed=1, max_rounds=2, end_score=10_000)
    while not game.over:
        game.apply([game.forced_action(seat) for seat in game.acting()])
    assert game.round == 2 and len(game.round_scores) == 2
    assert game.scores == [sum(r[seat] for r in game.round_scores) for seat in range(2)]


def test_placements_break_ties_by_the_final_round_then_share() -> None:
    assert placements([50, 50, 40], [10, 12, 5], [False] * 3) == [2, 1, 3]
    assert placements([50, 50, 40], [10, 10, 5], [False] * 3) == [1, 1, 3]
    assert placements([90, 50, 40], [1, 2, 3], [True, False, False]) == [3, 1, 2]
    assert placements([10, 10, 10, 10], [1, 1, 1, 1], [False, True, False, True]) == [1, 3, 1, 3]


# -- actions -------------------------------------------------------------------------------------


def test_replies_of_the_wrong_shape_are_invalid() -> None:
    game = state(4)
    for reply in (
        {},
        {"action": "draw"},
        {"action": "goal"},
        {"action": "goal", "card": "3"},
        {"action": "goal", "card": True},
        {"action": "pass", "cards": 3},
        {"action": "pass", "cards": [1, "2"]},
    ):
        with pytest.raises(InvalidReply):
            game.parse_action(0, reply)


def test_choices_the_rules_forbid_are_illegal_and_change_nothing() -> None:
    game = with_hands(state(4), [list(range(1 + 8 * h, 9 + 8 * h)) for h in range(4)])
    with pytest.raises(IllegalAction, match="not in your hand"):
        game.parse_action(0, {"action": "goal", "card": 9})
    with pytest.raises(IllegalAction, match="chooses a goal"):
        game.parse_action(0, {"action": "pass", "cards": [1]})
    assert game.parse_action(0, {"action": "goal", "card": 3, "extra": 1}) == Action(GOAL, (3,))
    snapshot = [list(hand) for hand in game.hands]
    with pytest.raises(IllegalAction, match="seat 3"):
        game.apply([Action(GOAL, (1,)), Action(GOAL, (9,)), Action(GOAL, (17,)), Action(GOAL, (1,))])
    assert game.hands == snapshot and game.phase == GOAL
    game.apply([Action(GOAL, (h * 8 + 1,)) for h in range(4)])
    k = game.pass_count
    with pytest.raises(IllegalAction, match=f"exactly {k}"):
        game.parse_action(0, {"action": "pass", "cards": [2, 3, 4, 5][: k + 1]})
    with pytest.raises(IllegalAction, match="named twice"):
        game.parse_action(0, {"action": "pass", "cards": [2, 2]})
    assert game.parse_action(0, {"action": "pass", "cards": list(range(2, 2 + k))[::-1]}).cards == tuple(
        range(2, 2 + k)
    )


def test_the_forced_choice_is_the_first_cards_in_id_order() -> None:
    game = state(4, seed=5)
    for seat in range(4):
        assert game.forced_action(seat) == Action(GOAL, (min(game.hands[seat]),))
    game.apply([game.forced_action(seat) for seat in game.acting()])
    k = game.pass_count
    for seat in range(4):
        assert game.forced_action(seat) == Action(PASS, tuple(sorted(game.hands[seat])[:k]))
        assert game.forced_action(seat) in game.legal_actions(seat)


def test_the_legal_actions_are_every_goal_or_every_set_of_k() -> None:
    game = state(4, seed=5)
    assert len(game.legal_actions(0)) == 8
    game.apply([game.forced_action(seat) for seat in game.acting()])
    assert len(game.legal_actions(0)) == {0: 1, 1: 7, 2: 21, 3: 35}[game.pass_count]
    assert game.turn(0)["legal"] == [a.wire() for a in game.legal_actions(0)]


def test_the_same_seed_deals_the_same_cards_whatever_the_play() -> None:
    deals = []
    for policy in (0, 1):
        game = state(3, seed=77)
        rounds = [[list(h) for h in game.hands]]
        rng = random.Random(policy)
        while not game.over:
            before = game.round
            game.apply([rng.choice(game.legal_actions(seat)) for seat in game.acting()])
            if game.round != before and not game.over:
                rounds.append([list(h) for h in game.hands])
        deals.append(rounds[:2])
    assert deals[0] == deals[1]
