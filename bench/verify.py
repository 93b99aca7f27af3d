"""Verifying many replays: files per second with one process and with a pool, as a ratio.

Run as ``python bench/verify.py [FILES]`` from the repository root (about half a minute).
It writes FILES (default 2,000) four-player L.L.A.M.A. replays, played in-process by the
referee with random players, then verifies them all with ``-j 1`` and ``-j 2``, the
baseline and the pool in the same process. The last line is ``pool ratio: X.XX``.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.games import get_game  # noqa: E402
from harness.protocol.build import header_fields  # noqa: E402
from harness.referee import play_game  # noqa: E402
from harness.replay.batch import expand, verify_many  # noqa: E402
from harness.replay.io import ReplayWriter  # noqa: E402
from harness.replay.records import REPLAY_FORMAT  # noqa: E402


class _Random:
    """A player that takes a random legal action (from the state) and ignores every message."""

    def __init__(self, state: Any, seat: int, rng: random.Random) -> None:
        self.name, self.version = f"r{seat}", "1"
        self.state, self.seat, self.rng = state, seat, rng
        self.reply: dict[str, Any] = {}

    def begin(self, game_start: dict[str, Any]) -> None: ...

    def notify(self, message: dict[str, Any]) -> None: ...

    def send_turn(self, turn: dict[str, Any]) -> None:
        action = self.rng.choice(list(self.state.legal_actions(self.seat)))
        self.reply = {"type": "action", "id": 1, **action.wire()}

    def receive(self) -> tuple[dict[str, Any], float]:
        return self.reply, 0.0001

    def faulted(self) -> str:
        return ""


def write_replays(folder: Path, count: int) -> None:
    game = get_game("llama")
    options = game.parse_options({})
    rng = random.Random(1)
    for number in range(count):
        state = game.new_game(options, 4, number)
        players = [_Random(state, seat, rng) for seat in range(4)]
        header = {
            "type": "header",
            "format": REPLAY_FORMAT,
            **header_fields(game, options),
            "seed": number,
            "match": 1,
        }
        writer = ReplayWriter(folder / f"{number // 1000:03d}" / f"game-{number:06d}.jsonl")
        play_game(game, state, players, writer, header=header, game_no=1, seeds=[0, 1, 2, 3])
        writer.commit()


def rate(paths: list[Path], jobs: int) -> float:
    started = time.perf_counter()
    bad = sum(verdict.problem is not None for verdict in verify_many(paths, jobs))
    assert bad == 0, f"{bad} replays do not verify"
    return len(paths) / (time.perf_counter() - started)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_replays(folder, count)
        paths = expand([folder])
        size = sum(path.stat().st_size for path in paths) / len(paths)
        print(f"{len(paths)} replays, {size / 1024:.1f} KiB each, {len(os.sched_getaffinity(0))} cores")
        one = rate(paths, 1)
        print(f"-j 1: {one:,.0f} replays/s ({1000 / one:.2f} ms each)")
        two = rate(paths, 2)
        print(f"-j 2: {two:,.0f} replays/s ({1000 / two:.2f} ms each)")
        print(f"pool ratio: {two / one:.2f}")


if __name__ == "__main__":
    main()
