#!/usr/bin/env python3
"""Test bot: exits before the handshake on its first start in a match (or on every start with CRASH_ALWAYS=1).

Plays uniformly at random otherwise (stdlib only, like sample_bots/random).
"""

import json
import os
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(0)
    game = turns = 0
    marker = os.path.join(os.environ["TMPDIR"], "crash_start.marker")
    if os.environ.get("CRASH_ALWAYS") or not os.path.exists(marker):
        open(marker, "w").close()
        sys.stderr.write("crash_start: exiting before hello\n")
        sys.exit(2)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": "crash_start", "version": "1"})
        elif kind == "game_start":
            game = msg["game"]
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
            if game == 1 and turns == 2:
                pass
            send(reply)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
