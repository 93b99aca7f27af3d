"""Tests for the incremental multiplayer Elo, against hand-computed values."""

from __future__ import annotations

import pytest

from harness.ratings import GameResult, sequential_elo


def test_two_player_games() -> None:
    games = [
        GameResult(("a", "b"), (1, 2), "g1"),
        GameResult(("a", "b"), (2, 1), "g2"),
    ]
    # Game 1 at 1500 each: expected 1/2, so a gains 32 * 1/2 = 16, b loses 16.
    after_one = sequential_elo(games[:1])
    assert after_one == {"a": 1516.0, "b": 1484.0}
    # Game 2: b (1484) beats a (1516). E_b = 1 / (1 + 10^(32/400))
    # = 1 / (1 + 1.2022644) = 0.4540782, so b gains 32 * 0.5459218 = 17.46950.
    final = sequential_elo(games)
    assert final["b"] == pytest.approx(1484.0 + 17.46950, abs=1e-4)
    assert final["a"] == pytest.approx(1516.0 - 17.46950, abs=1e-4)


def test_three_player_games_with_a_tie() -> None:
    games = [
        GameResult(("a", "b", "c"), (1, 2, 2), "g1"),
        GameResult(("c", "a", "b"), (1, 2, 3), "g2"),
    ]
    # Game 1, all at 1500, K/(n-1) = 16:
    #   a: 16 * ((1 - 1/2) + (1 - 1/2)) = +16
    #   b: 16 * ((0 - 1/2) + (1/2 - 1/2)) = -8, and c likewise -8.
    assert sequential_elo(games[:1]) == {"a": 1516.0, "b": 1492.0, "c": 1492.0}
    # Game 2 from a 1516, b 1492, c 1492; E(1492 vs 1516) = 1 / (1 + 10^(24/400))
    # = 0.4655161 and E(1516 vs 1492) = 0.5344839:
    #   c (1st): 16 * ((1 - 0.4655161) + (1 - 0.5)) = +16.551742
    #   a (2nd): 16 * ((0 - 0.5344839) + (1 - 0.5344839)) = -1.103486
    #   b (3rd): 16 * ((0 - 0.5) + (0 - 0.4655161)) = -15.448258
    final = sequential_elo(games)
    assert final["c"] == pytest.approx(1492.0 + 16.551742, abs=1e-5)
    assert final["a"] == pytest.approx(1516.0 - 1.103486, abs=1e-5)
    assert final["b"] == pytest.approx(1492.0 - 15.448258, abs=1e-5)
    assert list(final) == ["a", "b", "c"]  # order of first appearance


def test_k_and_initial() -> None:
    games = [GameResult(("x", "y"), (1, 2), "g1")]
    assert sequential_elo(games, k=10.0, initial=1000.0) == {"x": 1005.0, "y": 995.0}


def test_update_is_simultaneous_and_zero_sum() -> None:
    games = [
        GameResult(("a", "b", "c", "d"), (2, 1, 4, 3), "g1"),
        GameResult(("d", "c", "b", "a"), (1, 1, 3, 4), "g2"),
    ]
    final = sequential_elo(games)
    assert sum(final.values()) == pytest.approx(4 * 1500.0)


def test_empty_and_bad_k() -> None:
    assert sequential_elo([]) == {}
    with pytest.raises(ValueError, match="-1"):
        sequential_elo([], k=-1.0)
