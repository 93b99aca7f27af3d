#!/usr/bin/env python3
"""Hostile bot: writes megabytes to stderr, but plays legally and on time.

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start() -> None:
    junk = "flood " * 10000 + "\n"
    for _ in range(50):  # ~3 MB before the first move
        sys.stderr.write(junk)
    sys.stderr.flush()


def hello(msg: dict) -> None:
    send({"type": "hello", "name": "stderr_flood", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    sys.stderr.write("flood " * 10000 + "\n")
    sys.stderr.flush()
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
