#!/usr/bin/env python3
"""Hostile bot: its build (build.py) writes into its folder without end.

Plays uniformly at random (stdlib only). Part of tests/hostile.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "build-flood", "version": "1"}
        elif kind == "game_start":
            rng.seed(msg["seed"])
            continue
        elif kind == "turn":
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
