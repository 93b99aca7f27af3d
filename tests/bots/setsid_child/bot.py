#!/usr/bin/env python3
"""Test bot: leaves a setsid'd grandchild holding stdout open, then exits on its second turn of game 1.

Plays uniformly at random otherwise (stdlib only, like sample_bots/random).
"""

import json
import os
import random
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random(0)
    game = turns = 0
    if os.fork() == 0:  # double fork: the grandchild escapes the process group and session
        os.setsid()
        if os.fork() == 0:
            # not in its folder: a bot runs from a read-only snapshot
            with open(os.path.join(os.environ.get("PID_DIR", os.environ["TMPDIR"]), f"grandchild-{os.getpid()}.pid"), "w") as fh:
                fh.write(str(os.getpid()))
            time.sleep(3600)
        os._exit(0)
    os.wait()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": "setsid_child", "version": "1"})
        elif kind == "game_start":
            game = msg["game"]
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
            if game == 1 and turns == 2:
                os._exit(0)
            send(reply)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
