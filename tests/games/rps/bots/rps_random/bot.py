#!/usr/bin/env python3
"""A rock-paper-scissors bot: a seeded random legal throw (protocol v1)."""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "rps-random", "version": "1.0"}
        elif kind == "game_start":
            rng.seed(msg["seed"])
            continue
        elif kind == "turn":
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
        elif kind == "shutdown":
            return
        else:
            continue  # revealed, game_end, anything new
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
