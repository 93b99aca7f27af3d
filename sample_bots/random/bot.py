#!/usr/bin/env python3
"""A L.L.A.M.A. bot that picks uniformly among the legal actions (protocol v1).

Standard library only: copy this folder anywhere and it still works.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "random", "version": "1.0"}
        elif kind == "game_start":
            rng.seed(msg["seed"])  # reproducible games
            continue
        elif kind == "turn":
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()  # a bot must flush: stdout is a pipe, not a terminal


if __name__ == "__main__":
    main()
