#!/usr/bin/env python3
"""Test bot: writes 5 MB to stderr before answering its second turn of game 1 (no fault).

Plays uniformly at random otherwise (stdlib only, like sample_bots/random).
"""

import json
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(0)
    game = turns = 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": "stderr_flood", "version": "1"})
        elif kind == "game_start":
            game = msg["game"]
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
            if game == 1 and turns == 2:
                block = "flood " * 1000 + "\n"
                for _ in range(5_000_000 // len(block) + 1):
                    sys.stderr.write(block)
                sys.stderr.flush()
            send(reply)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
