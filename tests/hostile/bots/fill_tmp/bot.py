#!/usr/bin/env python3
"""Hostile bot: writes to $TMPDIR until the disk says no, then crashes on the error.

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import os
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start() -> None:
    pass


def hello(msg: dict) -> None:
    send({"type": "hello", "name": "fill_tmp", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    if turns == 1:
        chunk = b"x" * (1 << 20)
        written = 0
        for number in range(1000):  # at most 1 GB: bounded even on a host without limits
            path = os.path.join(os.environ["TMPDIR"], f"fill-{number}")
            with open(path, "wb") as fh:
                for _ in range(256):
                    try:
                        fh.write(chunk)
                        fh.flush()
                    except OSError as err:
                        sys.stderr.write(f"FILL stopped after {written >> 20} MiB: {err}\n")
                        raise
                    written += len(chunk)
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
