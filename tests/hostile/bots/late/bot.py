#!/usr/bin/env python3
"""Hostile bot: answers every third turn after the move deadline.

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import random
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start() -> None:
    pass


MOVE = [1.0]


def hello(msg: dict) -> None:
    MOVE[0] = msg["time"]["move_ms"] / 1000
    send({"type": "hello", "name": "late", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    if turns % 3 == 2:
        time.sleep(MOVE[0] * 1.5 + 0.1)
    send(reply)


def main() -> None:
    rng = random.Random(0)
    turns = 0
    start()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            hello(msg)
        elif kind == "game_start":
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            turn(turns, msg, {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
