#!/usr/bin/env python3
"""Test bot: answers its second turn of game 1 with a line that is not UTF-8.

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
            send({"type": "hello", "name": "bad_utf8", "version": "1"})
        elif kind == "game_start":
            game = msg["game"]
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
            if game == 1 and turns == 2:
                data = json.dumps(reply)[:-1].encode() + b', "note": "caf\xe9"}\n'
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
                continue
            send(reply)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
