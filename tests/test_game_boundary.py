"""The game boundary: the harness reaches a game only through the interface and the registry.

The referee, the protocol envelope, the replay reader and verifier, the league and its
store, the ratings, the report, check-bot and the CLI import nothing from a game's
package and name none of L.L.A.M.A.'s fields; ``harness/games/__init__.py`` is the one
place outside the package that names it.
"""

from __future__ import annotations

import ast
import io
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
            assert not any(name == g or name.startswith(g + ".") for g in games), f"{path.name} imports {name}"


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
        if "games" not in path.relative_to(HARNESS).parts and "harness.games.llama" in path.read_text(encoding="utf-8")
    ]
    assert naming == []
    assert "harness.games.llama import" in (HARNESS / "games" / "__init__.py").read_text(encoding="utf-8")
