"""The game boundary: the harness reaches a game only through the interface and the registry.

The referee, the protocol envelope, the replay reader and verifier, the league and its
store, the ratings, the report, check-bot and the CLI import nothing from a game's
package and name none of L.L.A.M.A.'s fields, nor any registered game's own names (its
name, rules options, record and message types: rock-paper-scissors' too);
``harness/games/__init__.py`` is the one place outside the package that names it.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "harness"
NEUTRAL = sorted(
    [
        HARNESS / "referee.py",
        HARNESS / "match.py",
        HARNESS / "checkbot.py",
        HARNESS / "schema.py",
        HARNESS / "cli.py",
        HARNESS / "html" / "report.py",
        HARNESS / "html" / "viewer.py",
        *(HARNESS / "protocol").glob("*.py"),
        *(HARNESS / "replay").glob("*.py"),
        *(HARNESS / "league").glob("*.py"),
        *(HARNESS / "ratings").glob("*.py"),
        *(HARNESS / "commands").glob("*.py"),
    ]
)
# L.L.A.M.A.'s wire fields, rules options and record fields: anywhere (names, strings, comments)
FIELDS = re.compile(r"\b(penalty|penalties|stock|variant|komary|next_starter)\b", re.I)
# fields that are also plain English (or the program's name): as a name, or a whole string
WORDS = {"discard", "drawn", "returned", "llama"}
ALLOWED = {"discard"}  # a set's or a replay writer's discard(), not the discard pile


def _game_modules() -> set[str]:
    from harness.games import REGISTRY

    return {type(game).__module__ for game in REGISTRY.values()}


@pytest.mark.parametrize("path", NEUTRAL, ids=lambda p: str(p.relative_to(HARNESS)))
def test_neutral_modules_import_no_game_package(path: Path) -> None:
    games = _game_modules()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            assert not any(name == g or name.startswith(g + ".") for g in games), (
                f"{path.name} imports {name}"
            )


@pytest.mark.parametrize("path", NEUTRAL, ids=lambda p: str(p.relative_to(HARNESS)))
def test_neutral_modules_name_no_llama_field(path: Path) -> None:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        where = f"{path.name}:{token.start[0]}: {token.line.strip()}"
        if token.type == tokenize.NAME:
            assert not FIELDS.search(token.string), where
            assert token.string not in WORDS - ALLOWED, where
        elif token.type in (tokenize.STRING, tokenize.COMMENT):
            assert not FIELDS.search(token.string), where
            assert token.string.strip("\"'") not in WORDS, where


def test_the_scan_sees_what_it_looks_for() -> None:
    assert FIELDS.search("s.penalty") and FIELDS.search('"variant"') and FIELDS.search("next_starter")
    assert not FIELDS.search("llama-harness league standings")
    assert {"harness.games.llama"} <= _game_modules()


def test_the_registry_is_the_one_place_outside_a_game_that_names_it() -> None:
    naming = [
        path
        for path in HARNESS.rglob("*.py")
        if "games" not in path.relative_to(HARNESS).parts
        and "harness.games.llama" in path.read_text(encoding="utf-8")
    ]
    assert naming == []
    assert "harness.games.llama import" in (HARNESS / "games" / "__init__.py").read_text(encoding="utf-8")


def _own_names(game: object) -> set[str]:
    """A game's own names: its name, its rules options, the types of its own records and messages.

    Less what the harness itself defines (its envelope, header, fault and game_end
    fields): those the neutral modules may name. The default game's name is also the
    program's, checked as a word above.
    """
    from typing import get_args

    from pydantic import BaseModel

    from harness.games import DEFAULT_GAME
    from harness.protocol import messages
    from harness.replay import records

    shared = {
        name
        for module in (messages, records)
        for model in vars(module).values()
        if isinstance(model, type) and issubclass(model, BaseModel)
        for name in model.model_fields
    }
    shared |= {"hello", "turn", "action", "header", "fault", "game_end", "game_start", "shutdown"}

    def models(union: object) -> list[type[BaseModel]]:
        if isinstance(union, type) and issubclass(union, BaseModel):
            return [union]
        return [model for arg in get_args(union) for model in models(arg)]

    wire = game.wire  # type: ignore[attr-defined]
    kinds = {
        value
        for model in models(wire.records) + models(wire.to_bot)
        if "type" in model.model_fields
        for value in get_args(model.model_fields["type"].annotation)
    }
    own = set(game.options_model.model_fields) | kinds  # type: ignore[attr-defined]
    if game.name != DEFAULT_GAME:  # type: ignore[attr-defined]
        own.add(game.name)  # type: ignore[attr-defined]
    return own - shared


@pytest.mark.parametrize("path", NEUTRAL, ids=lambda p: str(p.relative_to(HARNESS)))
def test_neutral_modules_name_no_games_own_names(path: Path) -> None:
    from harness.games import REGISTRY

    names = {name: game for game in REGISTRY.values() for name in _own_names(game)}
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        where = f"{path.name}:{token.start[0]}: {token.line.strip()}"
        if (
            token.type == tokenize.NAME and not keyword.iskeyword(token.string)
        ) or token.type == tokenize.STRING:
            word = token.string.strip("\"'")
            assert word not in names, f"{where} names {names[word].name}'s {word!r}"


def test_every_game_has_names_of_its_own_to_look_for() -> None:
    from harness.games import REGISTRY

    assert {"rps", "llama", "llama-llama"} <= set(REGISTRY)
    for game in REGISTRY.values():
        assert _own_names(game), game.name
    assert {"throws", "revealed", "variant", "rps"} <= _own_names(REGISTRY["rps"])
    assert {"round_end", "end_score", "next_starter"} <= _own_names(REGISTRY["llama"])
