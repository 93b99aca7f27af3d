"""The published rules' own tables and FAQ answers, position by position."""

from __future__ import annotations

import pytest

from harness.games import IllegalAction
from harness.games.llama.rules import (
    DRAW,
    LLAMA,
    PLAY,
    QUIT,
    Variant,
    next_card,
    penalty,
    placements,
)

L = LLAMA

# the published table "Which cards can you play on each number?"
PLAYABLE_ON = {
    1: {1, 2},
    2: {2, 3},
    3: {3, 4},
    4: {4, 5},
    5: {5, 6},
    6: {6, L},
    L: {L, 1},
}


def test_next_card_wraps_through_the_llama() -> None:
    assert [next_card(c) for c in range(1, 8)] == [2, 3, 4, 5, 6, 7, 1]


@pytest.mark.parametrize("top", sorted(PLAYABLE_ON))
@pytest.mark.parametrize("card", range(1, 8))
def test_which_card_plays_on_which(table, top: int, card: int) -> None:
    state = table([[card] * 6, [1, 2, 3, 4, 5, 6]], discard=top, stock=[3, 3])
    plays = [a for a in state.legal_actions() if a.kind.value == "play"]
    assert plays == ([PLAY[card]] if card in PLAYABLE_ON[top] else [])


@pytest.mark.parametrize(("top", "card"), [(3, 5), (L, 2), (5, L), (6, 1), (1, L)])
def test_skipping_or_going_back_is_illegal(table, top: int, card: int) -> None:
    state = table([[card, card, 4, 4, 4, 4], [1] * 6], discard=top, stock=[2])
    with pytest.raises(IllegalAction, match=rf"play {card} on {top}: must be {top} or {next_card(top)}"):
        state.parse_action(state.current, {"action": "play", "card": card})
    with pytest.raises(IllegalAction):
        state.apply([PLAY[card]])


# the published worked examples "How negative-point scoring works"
@pytest.mark.parametrize(
    ("hand", "points"),
    [([3, 3, 3], 3), ([2, 5, 5], 7), ([L, L], 10), ([1, 4, L, L], 15), ([], 0)],
)
def test_scoring_examples(hand: list[int], points: int) -> None:
    assert penalty(hand, Variant.STANDARD) == points


@pytest.mark.parametrize(
    ("hand", "points"),
    [([3, 3, 3], 3), ([2, 5, 5], 7), ([L], 10), ([L, L], 20), ([1, 4, L, L], 25), ([L] * 7, 70), ([], 0)],
)
def test_komary_scores_each_llama(hand: list[int], points: int) -> None:
    assert penalty(hand, Variant.KOMARY) == points


def test_a_full_standard_hand() -> None:
    assert penalty([1, 2, 3, 4, 5, 6, L, L], Variant.STANDARD) == 31


# -- the published FAQ ---------------------------------------------------------------


def test_faq_one_on_a_llama(table) -> None:
    state = table([[1, L, 4, 4, 4, 4], [2] * 6], discard=L, stock=[5])
    assert PLAY[1] in state.legal_actions()
    assert PLAY[L] in state.legal_actions()
    state.apply([PLAY[1]])
    assert state.discard == 1


def test_faq_no_llama_on_a_five(table) -> None:
    state = table([[L] * 6, [2] * 6], discard=5, stock=[5])
    assert state.legal_actions() == [DRAW, QUIT]


def test_faq_drawing_ends_the_turn(table) -> None:
    state = table([[4] * 6, [4] * 6, [4] * 6], discard=1, stock=[2, 3])
    step = state.apply([DRAW])
    assert step.actions[0] == {"action": "draw", "drawn": 2}
    assert state.hands[0].count(2) == 1
    assert state.current == 1  # the drawn 2 would be playable, but the turn is over
    assert state.public[-1] == {"seat": 0, "action": "draw"}


def test_faq_may_quit_holding_a_playable_card(table) -> None:
    state = table([[2, 4, 4, 4, 4, 4], [4] * 6], discard=1, stock=[5])
    assert PLAY[2] in state.legal_actions() and QUIT in state.legal_actions()
    state.apply([QUIT])
    assert state.quit[0] and state.current == 1


def test_faq_may_draw_holding_a_playable_card(table) -> None:
    state = table([[2, 4, 4, 4, 4, 4], [4] * 6], discard=1, stock=[5])
    assert DRAW in state.legal_actions()
    state.apply([DRAW])
    assert sorted(state.hands[0]) == [2, 4, 4, 4, 4, 4, 5]


def test_faq_duplicates_count_once() -> None:
    assert penalty([6, 6, 6], Variant.STANDARD) == 6
    assert penalty([L, L, L], Variant.STANDARD) == 10


def test_faq_last_player_alone_may_play_but_not_draw(table) -> None:
    state = table([[4] * 6, [1, 2, 3, 5, 5, 5]], discard=1, stock=[6, 6])
    state.apply([QUIT])  # seat 0 quits; seat 1 is alone
    assert state.current == 1
    assert state.legal_actions() == [PLAY[1], PLAY[2], QUIT]
    with pytest.raises(IllegalAction, match="no other player"):
        state.parse_action(state.current, {"action": "draw"})
    state.apply([PLAY[2]])
    assert state.current == 1  # alone, they keep the turn
    state.apply([PLAY[3]])
    assert state.legal_actions() == [QUIT]  # 5 on 3 is not allowed, no draw
    step = state.apply([QUIT])
    assert step.records[0]["type"] == "round_end"


def test_faq_game_ends_after_the_round_where_someone_reaches_40(table) -> None:
    state = table([[4] * 6, [L, 6, 5, 4, 3, 2]], discard=1, stock=[6])
    state.scores = [0, 19]
    state.apply([QUIT])
    step = state.apply([QUIT])  # seat 1 scores 10 + 20 = 30 → 49
    assert state.scores == [4, 49]
    assert [t["type"] for t in step.records] == ["round_end"]
    assert state.over and not state.adjudicated and state.current is None
    assert state.legal_actions() == []


def test_faq_lowest_score_wins_and_ties_share() -> None:
    assert placements([41, 12, 30], [False] * 3) == [3, 1, 2]
    assert placements([41, 12, 12, 30], [False] * 4) == [4, 1, 1, 3]
