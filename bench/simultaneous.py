"""Simultaneous steps cost the slowest bot's time, not the sum: four slow bots, asked at once or in turn.

Run: ``python bench/simultaneous.py [--think MS] [--games N]``

Four bots that each take ``--think`` ms (default 100) over every decision play a
4-player Llama Llama game (every step is a simultaneous choice of all four) twice
through the harness: as the referee plays it (every acting seat's turn sent at once,
the replies gathered by one poll), and with each turn's reply awaited before the next
seat is asked (the referee's own code otherwise). The last line is
``simultaneous / one by one: X.XX`` (about 0.25 for four bots).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import referee
from harness.bots.manifest import load_bot
from harness.games import get_game
from harness.match import BotPlayer, Clock, Table, TableSettings, seating_for
from harness.seeds import derive_seed

GAME = "llama-llama"
SLOW_BOT = r"""
import json, sys, time
delay = float(sys.argv[1]) / 1000.0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "turn":
        time.sleep(delay)
        sys.stdout.write(json.dumps({"type": "action", "id": msg["id"], **msg["legal"][0]}) + "\n")
        sys.stdout.flush()
    elif msg["type"] == "hello":
        sys.stdout.write('{"type":"hello","name":"slow","version":"1"}\n')
        sys.stdout.flush()
    elif msg["type"] == "shutdown":
        break
"""


def make_bots(root: Path, think_ms: int) -> list[Path]:
    folders = []
    for index in range(4):
        folder = root / f"slow{index}"
        folder.mkdir()
        (folder / "bot.py").write_text(SLOW_BOT)
        (folder / "bot.toml").write_text(
            f'name = "slow{index}"\nversion = "1"\ncommand = ["{sys.executable}", "bot.py", "{think_ms}"]\n'
            f'games = ["{GAME}"]\n'
        )
        folders.append(folder)
    return folders


class _InTurn:
    """Makes each seat's send wait for its reply, so the seats of a step are asked one by one."""

    def __enter__(self) -> None:
        self.send, self.receive = BotPlayer.send_turn, BotPlayer.receive
        send, receive = self.send, self.receive

        def send_and_wait(player: BotPlayer, turn: dict[str, Any]) -> None:
            send(player, turn)
            player._waited = receive(player)  # type: ignore[attr-defined]

        def replied(player: BotPlayer) -> tuple[dict[str, Any], float]:
            reply: tuple[dict[str, Any], float] = player._waited  # type: ignore[attr-defined]
            return reply

        BotPlayer.send_turn = send_and_wait  # type: ignore[method-assign]
        BotPlayer.receive = replied  # type: ignore[method-assign]
        # the referee would poll the sessions for replies already taken: it takes them in turn
        self.collect = referee._collect
        referee._collect = lambda players: [player.receive() for player in players]

    def __exit__(self, *_: object) -> None:
        BotPlayer.send_turn = self.send  # type: ignore[method-assign]
        BotPlayer.receive = self.receive  # type: ignore[method-assign]
        referee._collect = self.collect


def play(folders: list[Path], games: int, out: Path, in_turn: bool) -> tuple[float, int, int]:
    """Play ``games`` games; return (seconds, steps, decisions)."""
    specs = [load_bot(folder) for folder in folders]
    names = [spec.name for spec in specs]
    game = get_game(GAME)
    settings = TableSettings(game=GAME, options=game.parse_options({}), clock=Clock(10.0, 5.0), logs=out / "logs")
    steps = decisions = 0
    with Table(specs, settings, games) as table:
        for player in table.players.values():  # start every process before timing
            player.begin({"type": "game_start", "game": 0, "seat": 0, "players": 4, "seed": 0})
        start = time.perf_counter()
        with _InTurn() if in_turn else _Nothing():
            for index in range(games):
                result = table.play(
                    index + 1, seating_for(names, index), derive_seed(3, index + 1), out / f"g{index}.jsonl"
                )
                decisions += result.moves
                steps += result.moves // 4
        elapsed = time.perf_counter() - start
    return elapsed, steps, decisions


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=int, default=100, help="ms each bot takes per decision")
    parser.add_argument("--games", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="llama-bench-") as tmp:
        root = Path(tmp)
        folders = make_bots(root, args.think)
        together, steps, decisions = play(folders, args.games, root / "together", in_turn=False)
        in_turn, _, _ = play(folders, args.games, root / "in-turn", in_turn=True)
    print(f"{GAME}: 4 bots thinking {args.think} ms a decision, {args.games} game(s), {steps} steps, {decisions} decisions")
    print(f"asked at once:   {together:6.2f} s ({together / steps * 1000:.0f} ms a step)")
    print(f"asked in turn:   {in_turn:6.2f} s ({in_turn / steps * 1000:.0f} ms a step)")
    print(f"simultaneous / one by one: {together / in_turn:.2f}")


if __name__ == "__main__":
    main()
