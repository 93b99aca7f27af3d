#!/usr/bin/env python3
"""Hostile bot: at hello, starts $HOG_CHILDREN (40) busy children, each in its own session, to starve the table.

Then plays uniformly at random (stdlib only). Part of tests/hostile.
"""

import json
import os
import random
import sys


def hog(count: int) -> None:
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError:
            return  # the process limit
        if pid == 0:
            os.setsid()
            while True:  # busy forever, until the harness kills it
                pass


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            hog(int(os.environ.get("HOG_CHILDREN", "40")))
            reply = {"type": "hello", "name": "cpu-hog", "version": "1"}
        elif kind == "game_start":
            rng.seed(msg["seed"])
            continue
        elif kind == "turn":
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
