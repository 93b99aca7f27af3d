#!/usr/bin/env python3
"""Test bot: thinks $THINK_MS (150) ms of busy CPU per move, as a real search would, then plays at random.

The victim beside tests/hostile/bots/cpu_hog (stdlib only). Part of tests/hostile.
"""

import json
import os
import random
import sys
import time

THINK = float(os.environ.get("THINK_MS", "150")) / 1000.0


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "thinker", "version": "1"}
        elif kind == "game_start":
            rng.seed(msg["seed"])
            continue
        elif kind == "turn":
            end = time.thread_time() + THINK  # CPU time of its own: what a starved bot lacks
            while time.thread_time() < end:
                pass
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
