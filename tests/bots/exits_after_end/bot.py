#!/usr/bin/env python3
"""Test bot: exits after every game_end, as if a process played one game (it plays a match).

Plays uniformly at random otherwise (stdlib only).
"""

import json
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": "exits_after_end", "version": "1"})
        elif kind == "game_start":
            rng.seed(msg["seed"])
        elif kind == "turn":
            send({"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
        elif kind in ("game_end", "shutdown"):
            return  # the mistake: the next game_start is coming


if __name__ == "__main__":
    main()
