#!/usr/bin/env python3
"""Hostile bot: connects to 127.0.0.1:$NET_PORT (default 9) on its first turn, unguarded.

Plays uniformly at random otherwise (stdlib only). Part of tests/hostile.
"""

import json
import os
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start() -> None:
    pass


def hello(msg: dict) -> None:
    send({"type": "hello", "name": "network", "version": "1"})


def turn(turns: int, msg: dict, reply: dict) -> None:
    if turns == 1:
        import socket

        port = int(os.environ.get("NET_PORT", "9"))
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"the hand of seat 0 is ...\n")
        sys.stderr.write(f"NETWORK CONNECTED to port {port}\n")
        sys.stderr.flush()
    send(reply)


def main() -> None:
    rng = random.Random(0)
    turns = 0
    start()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            hello(msg)
        elif kind == "game_start":
            rng.seed(msg["seed"])
        elif kind == "turn":
            turns += 1
            turn(turns, msg, {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])})
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
