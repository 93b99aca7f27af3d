"""Shared test helpers: in-process fake players and a one-call referee game."""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import third_game  # noqa: F401  (before the harness: it registers rock-paper-scissors)

from harness.errors import BotFault, FaultKind
from harness.games.llama import LLAMA_GAME
from harness.referee import GameResult, play_game
from harness.replay.io import ReplayWriter
from harness.replay.records import REPLAY_FORMAT


@pytest.fixture(autouse=True)
def own_temp_root(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own TMPDIR: the bots' temp folders never mix with another run's.

    Set for this process (``tempfile.tempdir`` caches it) and for the processes it starts.
    """
    root = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


class FakePlayer:
    """A Player that picks among ``turn["legal"]`` with a seeded Random and records every message.

    ``fault_at=n`` makes its n-th turn raise a timeout BotFault (the referee then forces it).
    Turn ids are numbered here, as BotSession numbers them on the wire.
    """

    def __init__(self, name: str, seed: int, fault_at: int | None = None) -> None:
        self.name = name
        self.version = "1.0"
        self.rng = random.Random(seed)
        self.fault_at = fault_at
        self.turns = 0
        self.messages: list[dict[str, Any]] = []
        self._turn: dict[str, Any] = {}

    def _keep(self, message: dict[str, Any]) -> None:
        # a JSON round trip: what a bot would really receive, and a copy the referee cannot mutate
        self.messages.append(json.loads(json.dumps(message)))

    def begin(self, game_start: dict[str, Any]) -> None:
        self._keep(game_start)

    def notify(self, message: dict[str, Any]) -> None:
        self._keep(message)

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.turns += 1
        turn["id"] = self.turns
        self._keep(turn)
        self._turn = turn

    def receive(self) -> tuple[dict[str, Any], float]:
        if self.turns == self.fault_at:
            raise BotFault("no reply in time", FaultKind.TIMEOUT)
        choice = self.rng.choice(self._turn["legal"])
        return {"type": "action", "id": self._turn["id"], **choice}, 0.001

    def faulted(self) -> str:
        return "fake stderr tail"


def play_fake_game(
    path: Path | None = None,
    *,
    players: int = 3,
    seed: int = 1,
    options: Mapping[str, object] | None = None,
    game_no: int = 1,
    faults: Mapping[int, int] | None = None,
) -> tuple[GameResult, list[FakePlayer], list[dict[str, Any]]]:
    """Play one game with fake players; write it to ``path`` if given (plain or .gz).

    ``faults`` maps seat → the turn at which that seat faults. Returns the result, the
    players (with the messages they received) and every record written.
    """
    parsed = LLAMA_GAME.parse_options(options or {})
    state = LLAMA_GAME.new_game(parsed, players, seed)
    seats = [FakePlayer(NAMES[s], seed * 100 + s, (faults or {}).get(s)) for s in range(players)]
    records: list[dict[str, Any]] = []
    writer = ReplayWriter(path) if path is not None else None

    class Tee:
        def write(self, record: dict[str, Any]) -> None:
            records.append(record)
            if writer is not None:
                writer.write(record)

    header = {
        "type": "header",
        "format": REPLAY_FORMAT,
        "game": "llama",
        "variant": parsed.variant.value,
        "options": parsed.to_dict(),
        "seed": seed,
        "match": game_no,
    }
    result = play_game(
        LLAMA_GAME, state, seats, Tee(), header=header, game_no=game_no, seeds=list(range(players))
    )
    if writer is not None:
        writer.commit()
    return result, seats, records


@pytest.fixture
def play_fake() -> Callable[..., tuple[GameResult, list[FakePlayer], list[dict[str, Any]]]]:
    """The :func:`play_fake_game` helper."""
    return play_fake_game


# -- the fast lane: parametrized cases too long for it -----------------------------------

# (listed in helpers.SLOW_CASES: a test imports them, and `conftest` names several modules)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark :data:`helpers.SLOW_CASES` ``slow`` (``-m "not slow"`` leaves them out)."""
    from helpers import SLOW_CASES

    for item in items:
        if item.nodeid in SLOW_CASES:
            item.add_marker(pytest.mark.slow)


# -- no test writes into the checkout ---------------------------------------------------

_CHECKOUT = Path(__file__).resolve().parents[1]
# what running the tests themselves may leave (the interpreter's and the tools' caches)
_TOOLS = ("__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", ".tox", ".venv")


def _checkout_files() -> set[str] | None:
    """Untracked and ignored paths in the checkout, or None when it is not a git checkout."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "-z"],
            cwd=_CHECKOUT,
            capture_output=True,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    paths = {entry[3:].decode(errors="replace") for entry in done.stdout.split(b"\0") if entry}
    return {p for p in paths if not any(part in _TOOLS or part.endswith(".egg-info") for part in Path(p).parts)}


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_BEFORE] = _checkout_files()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(_BEFORE, None)
    after = _checkout_files() if before is not None else None
    if before is None or after is None:
        return
    new = sorted(after - before)
    if new:
        session.config.get_terminal_writer().line(
            f"tests wrote into the checkout: {', '.join(new[:10])}", red=True
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_BEFORE = pytest.StashKey[set[str] | None]()
