#!/usr/bin/env python3
"""A Llama Llama bot that picks uniformly among the legal actions (protocol v1 envelope).

Standard library only: copy this folder anywhere and it still works.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "ll-random", "version": "1.0"}
        elif kind == "game_start":
            rng.seed(msg["seed"])  # reproducible games
            continue
        elif kind == "turn":
            # each legal entry is a whole action ({"action": "goal", "card": 5} or
            # {"action": "pass", "cards": [3, 9]}): copy one into the reply
            reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
        elif kind == "shutdown":
            return
        else:
            continue  # round_start, goals_placed, reveal, passed, round_end, game_end
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()  # a bot must flush: stdout is a pipe, not a terminal


if __name__ == "__main__":
    main()
