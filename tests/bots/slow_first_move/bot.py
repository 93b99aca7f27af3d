#!/usr/bin/env python3
"""Test bot: does its warm-up at its first turn instead of before the hello reply.

It answers every process's first turn after 1.5 times the move limit (a JIT warm-up,
a table loaded lazily), then plays uniformly at random (stdlib only).
"""

import json
import random
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(0)
    move = 1.0
    warm = False
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            move = msg["time"]["move_ms"] / 1000.0
            send({"type": "hello", "name": "slow_first_move", "version": "1"})
        elif kind == "game_start":
            rng.seed(msg["seed"])
        elif kind == "turn":
            if not warm:
                time.sleep(1.5 * move)  # the warm-up, done too late
                warm = True
            send({"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
