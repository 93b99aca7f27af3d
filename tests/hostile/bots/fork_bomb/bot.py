#!/usr/bin/env python3
"""Hostile bot: starts a fork bomb on its first turn (capped at 2**10 processes so a test machine survives).

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import os
import random
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start() -> None:
    pass


def hello(msg: dict) -> None:
    send({"type": "hello", "name": "fork_bomb", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    depth = 0
    while depth < 10:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.05)
            continue
        depth += 1
        if pid == 0:
            continue  # the child forks on too
    time.sleep(3600)


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
