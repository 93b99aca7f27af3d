#!/usr/bin/env python3
"""Hostile bot: closes its stdout at its first turn and stays alive, silent.

Plays uniformly at random before that (stdlib only). Part of tests/hostile.
"""

import json
import os
import random
import sys
import time


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "close_stdout", "version": "1"}
        elif kind == "game_start":
            rng.seed(msg["seed"])
            continue
        elif kind == "turn":
            sys.stdout.flush()
            os.close(1)
            time.sleep(3600)
            return
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
