#!/usr/bin/env python3
"""Hostile bot: answers its first turn with valid JSON nested 5000 levels deep.

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    turns = 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = json.dumps({"type": "hello", "name": "deep_json", "version": "1"})
        elif kind == "game_start":
            rng.seed(msg["seed"])
            continue
        elif kind == "turn":
            turns += 1
            reply = json.dumps({"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
            if turns == 1:
                nested = "[" * 5000 + "]" * 5000
                reply = f'{{"type":"action","id":{msg["id"]},"action":{nested}}}'
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
