"""The Llama Llama sample bots, copied out of the repository, play whole games over real pipes.

A small referee loop here drives the rules state and speaks the protocol to each bot
process (hello, game_start, turns, the private notices, game_end, shutdown): every reply
must be a legal action, and the rule-based bots must outscore the random one.
"""

from __future__ import annotations

import json
import selectors
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from harness.games.llama_llama import LLAMA_LLAMA_GAME

ROOT = Path(__file__).parents[2]
BOTS = ("llama_llama_random", "llama_llama_heuristic", "llama_llama_node")


class PipeBot:
    """A bot process from a copied folder, spoken to in JSON lines."""

    def __init__(self, folder: Path) -> None:
        manifest = tomllib.loads((folder / "bot.toml").read_text())
        assert manifest["games"] == ["llama-llama"]
        self.proc = subprocess.Popen(
            manifest["command"],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin"},  # nothing of the harness's environment
        )
        self.selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        assert self.selector.select(timeout=10), "no reply within 10 s"
        assert self.proc.stdout is not None
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def close(self) -> int:
        self.send({"type": "shutdown"})
        return self.proc.wait(timeout=10)


def play(bots: list[PipeBot], seed: int, game_no: int) -> list[int]:
    """One game between ``bots`` by seat; return the totals. Every reply must be legal."""
    n = len(bots)
    state = LLAMA_LLAMA_GAME.new_game(LLAMA_LLAMA_GAME.parse_options({}), n, seed)
    for seat, bot in enumerate(bots):
        bot.send(
            {"type": "game_start", "game": game_no, "seat": seat, "players": n, "seed": seed * 10 + seat}
        )

    def tell(outcome: Any) -> None:
        for seat, notice in outcome.notices:
            bots[seat].send(
                {"type": notice["type"], "game": game_no, **{k: v for k, v in notice.items() if k != "type"}}
            )

    tell(state.begin())
    turn_id = 0
    while acting := state.acting():
        actions = []
        for seat in acting:
            turn_id += 1
            reply = bots[seat].ask({"type": "turn", "id": turn_id, "game": game_no, **state.turn(seat)})
            assert reply["type"] == "action" and reply["id"] == turn_id, reply
            actions.append(state.parse_action(seat, reply))  # raises if not legal
        tell(state.apply(actions))
    placements = LLAMA_LLAMA_GAME.final(state, [False] * n).placements
    for bot in bots:
        bot.send(
            {
                "type": "game_end",
                "game": game_no,
                "scores": state.scores,
                "winners": [s for s in range(n) if placements[s] == 1],
                "placements": placements,
                "forfeited": [False] * n,
                "adjudicated": False,
            }
        )
    return list(state.scores)


@pytest.fixture
def copied(tmp_path: Path) -> dict[str, Path]:
    """The sample bot folders, copied far from the repository."""
    return {name: Path(shutil.copytree(ROOT / "sample_bots" / name, tmp_path / name)) for name in BOTS}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_sample_bots_play_legal_games_from_a_copied_folder(copied: dict[str, Path], players: int) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")  # the JavaScript bot needs it; the others do not
    names = [BOTS[i % 3] for i in range(players)]
    bots = [PipeBot(copied[name]) for name in names]
    options = LLAMA_LLAMA_GAME.parse_options({}).to_dict()
    for seat, bot in enumerate(bots):
        hello = bot.ask(
            {
                "type": "hello",
                "protocol": 1,
                "game": "llama-llama",
                "options": options,
                "seat": seat,
                "players": players,
                "games": 2,
                "time": {"startup_ms": 10000, "move_ms": 5000},
            }
        )
        assert hello["type"] == "hello" and hello["name"].startswith("ll-")
    for game_no in (1, 2):
        play(bots, seed=players * 100 + game_no, game_no=game_no)
    assert [bot.close() for bot in bots] == [0] * players


def test_the_rule_based_bots_outscore_the_random_one(copied: dict[str, Path]) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    bots = [PipeBot(copied[name]) for name in BOTS]
    options = LLAMA_LLAMA_GAME.parse_options({}).to_dict()
    for seat, bot in enumerate(bots):
        bot.ask(
            {
                "type": "hello",
                "protocol": 1,
                "game": "llama-llama",
                "options": options,
                "seat": seat,
                "players": 3,
                "games": 12,
                "time": {"startup_ms": 10000, "move_ms": 5000},
            }
        )
    totals = [0, 0, 0]
    for game_no in range(1, 13):
        shift = game_no % 3  # seats rotate so that no bot keeps the dummy's neighbour
        seated = bots[shift:] + bots[:shift]
        scores = play(seated, seed=game_no, game_no=game_no)
        for seat, score in enumerate(scores):
            totals[(seat + shift) % 3] += score
    for bot in bots:
        bot.close()
    random_total, heuristic_total, node_total = totals
    assert heuristic_total > random_total and node_total > random_total, totals
