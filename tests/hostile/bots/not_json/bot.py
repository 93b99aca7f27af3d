#!/usr/bin/env python3
"""Hostile bot: answers a turn with a line that is not JSON.

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start() -> None:
    pass


def hello(msg: dict) -> None:
    send({"type": "hello", "name": "not_json", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    sys.stdout.write("I play a llama!\n")
    sys.stdout.flush()


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
