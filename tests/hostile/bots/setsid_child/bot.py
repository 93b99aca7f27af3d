#!/usr/bin/env python3
"""Hostile bot: leaves a setsid'd grandchild holding stdout open, then exits on turn 2.

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
    send({"type": "hello", "name": "setsid_child", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    if turns == 1:
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(3600)
            os._exit(0)
        os.wait()
    if turns == 2:
        os._exit(0)
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
