#!/usr/bin/env python3
"""Test bot: acknowledges every notification (game_start, round_start, ...) with a line.

Its turns are answered correctly, uniformly at random (stdlib only); the extra lines
are the mistake.
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
            send({"type": "hello", "name": "answers_notices", "version": "1"})
        elif kind == "turn":
            send({"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
        elif kind == "shutdown":
            return
        else:
            if kind == "game_start":
                rng.seed(msg["seed"])
            send({"type": "ok", "got": kind})  # the mistake: notifications need no reply


if __name__ == "__main__":
    main()
