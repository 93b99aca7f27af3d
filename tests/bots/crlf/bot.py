#!/usr/bin/env python3
"""Test bot: ends every line it writes with CRLF, as a bot written on Windows may.

Plays uniformly at random (stdlib only).
"""

import json
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\r\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": "crlf", "version": "1"})
        elif kind == "game_start":
            rng.seed(msg["seed"])
        elif kind == "turn":
            send({"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
