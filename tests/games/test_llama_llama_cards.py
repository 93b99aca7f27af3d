"""Llama Llama card sets and options: the TOML format, one-line errors, the shipped stand-in."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO
from llama_llama_support import card_set_dict

from harness.games import BadOptions
from harness.games.llama_llama import LLAMA_LLAMA_GAME
from harness.games.llama_llama.cards import CardSetError, default_card_set, load_card_set, parse_card_set

GAME = LLAMA_LLAMA_GAME


def toml_of(card_set: dict[str, Any]) -> str:
    lines = [f'name = "{card_set["name"]}"', ""]
    for card in card_set["cards"]:
        lines += [
            "[[cards]]",
            f"id = {card['id']}",
            f'letter = "{card["letter"]}"',
            f'top = {{ letter = "{card["top"]["letter"]}", points = {card["top"]["points"]} }}',
            f'bottom = {{ letters = "{card["bottom"]["letters"]}", points = {card["bottom"]["points"]} }}',
        ]
    for display in card_set["displays"]:
        few = display["two_three_players"]
        lines += [
            "[[displays]]",
            f"four_players = {{ passes = {display['four_players']['passes']} }}",
            f"two_three_players = {{ passes = {few['passes']}, dummy = {str(few['dummy']).lower()} }}",
        ]
    return "\n".join(lines) + "\n"


def test_the_shipped_set_is_a_labelled_stand_in_read_from_package_data() -> None:
    card_set = default_card_set()
    assert len(card_set.cards) == 32 and sorted(card_set.cards) == list(range(1, 33))
    assert "stand-in" in card_set.name and "not the real" in card_set.note
    assert sum(1 for _, few in card_set.displays if few.dummy) >= 2
    text = (Path(__file__).parents[2] / "harness/games/llama_llama/default.toml").read_text()
    assert "NOT those of the real game" in text


def test_a_card_set_file_loads_and_round_trips_through_its_mapping(tmp_path: Path) -> None:
    raw = card_set_dict([("A", "B", 2, "AAB", 9)])
    path = tmp_path / "mine.toml"
    path.write_text(toml_of(raw))
    card_set = load_card_set(path)
    assert card_set.cards[1].bottom == "AAB" and card_set.cards[1].bottom_need == (("A", 2), ("B", 1))
    assert parse_card_set(card_set.to_dict()) == card_set


def _broken(change: Any) -> dict[str, Any]:
    raw = card_set_dict()
    change(raw)
    return raw


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["cards"].pop(), "cards: 31 cards, a set has exactly 32"),
        (lambda r: r["cards"][5].update(id=3), "cards[5]: id 3 is already cards[2]'s"),
        (lambda r: r["cards"][3]["bottom"].update(letters="A"), "cards[3] (id 4).bottom.letters: "),
        (lambda r: r["cards"][3]["bottom"].update(letters="ABCDE"), "cards[3] (id 4).bottom.letters: "),
        (lambda r: r["cards"][7].update(letter="ab"), "cards[7] (id 8).letter: "),
        (lambda r: r["cards"][0]["top"].update(points=-1), "cards[0] (id 1).top.points: "),
        (lambda r: r["cards"][0].update(colour="red"), "cards[0] (id 1).colour: Extra inputs"),
        (lambda r: r["displays"][2]["four_players"].update(passes=4), "displays[2].four_players.passes: "),
        (lambda r: r["displays"].pop(), "displays: 3 displays, a set has exactly 4"),
        (
            lambda r: [d["two_three_players"].update(dummy=False) for d in r["displays"]],
            "displays: 0 marked for a dummy goal, at least 2 are needed",
        ),
        (lambda r: r["cards"][0].update(id="1"), "cards[0] (id '1').id: "),
    ],
)
def test_a_bad_card_set_is_one_line_naming_the_entry(change: Any, message: str) -> None:
    with pytest.raises(CardSetError) as caught:
        parse_card_set(_broken(change), "mine.toml")
    text = str(caught.value)
    assert text.startswith(f"mine.toml: {message}") and "\n" not in text


def test_a_bad_card_set_file_is_named_with_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml_of(_broken(lambda r: r["cards"][3]["bottom"].update(letters="A"))))
    with pytest.raises(
        CardSetError, match=r"bad\.toml: cards\[3\] \(id 4\)\.bottom\.letters: String should match"
    ):
        load_card_set(path)


def test_an_unreadable_card_set_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CardSetError, match="no such card-set file"):
        load_card_set(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("cards = [\n")
    with pytest.raises(CardSetError, match="not valid TOML"):
        load_card_set(bad)


def test_options_have_defaults_and_name_a_bad_field(tmp_path: Path) -> None:
    options = GAME.parse_options({})
    assert (options.end_score, options.max_rounds) == (100, 4) and options.card_set == default_card_set()
    for raw, message in (
        ({"variant": "komary"}, "unknown rules option 'variant'"),
        ({"end_score": 0}, "end_score: 0 is not a positive integer"),
        ({"max_rounds": True}, "max_rounds: True is not a positive integer"),
        ({"card_set": 3}, "card_set: 3 is neither a file name nor a card set"),
        ({"card_set": str(tmp_path / "none.toml")}, "card_set: "),
    ):
        with pytest.raises(BadOptions, match=message):
            GAME.parse_options(raw)
    bad = copy.deepcopy(card_set_dict())
    bad["cards"][9]["letter"] = "?"
    with pytest.raises(BadOptions, match=r"card_set: card set: cards\[9\] \(id 10\)\.letter"):
        GAME.parse_options({"card_set": bad})


def test_a_card_set_option_loads_a_file_and_the_header_carries_the_whole_set(tmp_path: Path) -> None:
    path = tmp_path / "real.toml"
    path.write_text(toml_of(card_set_dict([("Q", "Q", 3, "QQ", 5)])))
    options = GAME.parse_options({"card_set": str(path), "end_score": 50})
    written = options.to_dict()
    assert written["card_set"]["cards"][0]["letter"] == "Q"  # type: ignore[index]
    again = GAME.parse_options(written)  # a replay header alone gives the same game
    assert again == options
    GAME.options_model.model_validate(written)


def test_the_stand_in_set_lets_both_ends_of_the_game_happen() -> None:
    """With the shipped set, sensible play reaches 100 in some games and not in others.

    The heuristic sample bot plays every seat (its choose(), in-process): the game's two
    ends, 100 points and the fourth round, must both occur, or the stand-in would leave
    one of the rules untested in practice.
    """
    spec = importlib.util.spec_from_file_location("ll_heuristic", REPO / "sample_bots" / "llama_llama_heuristic" / "bot.py")
    assert spec is not None and spec.loader is not None
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    options = GAME.parse_options({})
    faces = bot.Faces(json.loads(json.dumps(options.to_dict()))["card_set"])
    reached = 0
    for seed in range(40):
        state = GAME.new_game(options, 4, seed)
        state.begin()
        while acting := state.acting():
            state.apply([state.parse_action(s, bot.choose(json.loads(json.dumps(state.turn(s))), faces)) for s in acting])
        reached += max(state.scores) >= options.end_score
    assert 0 < reached < 40  # some games end by the 100 points, others after round 4 below it
