#!/usr/bin/env python3
"""Test bot: plays a card it does not hold on its second turn of game 1.

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
            send({"type": "hello", "name": "illegal", "version": "1"})
        elif kind == "game_start":
            game = msg["game"]
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
            if game == 1 and turns == 2:
                missing = min(card for card in range(1, 8) if card not in msg["hand"])
                reply = {"type": "action", "id": msg["id"], "action": "play", "card": missing}
            send(reply)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
