"""A deterministic bot that copies every byte it receives to stderr (the wire golden test).

It picks among the legal actions with a Random seeded by game_start's seed; with
CHEAT_GAME set it answers an illegal play on its CHEAT_TURN-th turn of that game, and
it adds an unknown key to every reply (ignored by the referee).
"""

import json
import os
import random
import sys


def main() -> None:
    inp, out, err = sys.stdin.buffer, sys.stdout, sys.stderr.buffer
    cheat_game = int(os.environ.get("CHEAT_GAME", "0"))
    cheat_turn = int(os.environ.get("CHEAT_TURN", "0"))
    rng = random.Random(0)
    turns = 0
    game = 0
    for line in inp:
        err.write(b"<< " + line)
        err.flush()
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            out.write(json.dumps({"type": "hello", "name": "recorder", "version": "2"}) + "\n")
            out.flush()
        elif kind == "game_start":
            rng = random.Random(msg["seed"])
            game = msg["game"]
            turns = 0
        elif kind == "turn":
            turns += 1
            if game == cheat_game and turns == cheat_turn:
                reply = {
                    "type": "action",
                    "id": msg["id"],
                    "action": "play",
                    "card": (msg["discard"] + 2) % 7 + 1,
                }
            else:
                reply = {"type": "action", "id": msg["id"], "note": "x", **rng.choice(msg["legal"])}
            out.write(json.dumps(reply) + "\n")
            out.flush()
        elif kind == "shutdown":
            return


main()
