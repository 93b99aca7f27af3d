#!/usr/bin/env python3
"""Hostile bot: knows how the harness derives seeds and tries small master seeds against its game_start.seed.

For each game it tries every master seed below $GUESS_UP_TO with each derivation it
knows (the harness's source is public); on a hit it writes "GUESSED <master> DEAL
<deal seed>" to stderr: with the deal seed it could compute every hand and the stock.
Plays uniformly at random (stdlib only). Part of tests/hostile.
"""

import hashlib
import json
import os
import random
import sys


def old(*parts: object) -> int:
    text = ":".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:6], "big")


def keyed(secret: str, label: str, parts: tuple, size: int) -> int:
    key = hashlib.sha256(secret.encode()).digest()
    text = ":".join([label, *(str(part) for part in parts)]).encode()
    return int.from_bytes(hashlib.blake2b(text, key=key, digest_size=size).digest(), "big")


def guess(game: int, seat: int, seed: int) -> tuple[int, int] | None:
    for master in range(int(os.environ.get("GUESS_UP_TO", "2000"))):
        deal = old(master, game)  # a public derivation from the organiser's seed
        if old(deal, "bot", game, seat) == seed:
            return master, deal
        secret = f"seed:{master}"  # an explicit seed stands for a public secret
        if keyed(secret, "bot", (game, seat), 6) == seed:
            return master, keyed(secret, "deal", (game,), 8) >> 1
    return None


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "seed-guess", "version": "1"}
        elif kind == "game_start":
            found = guess(msg["game"], msg["seat"], msg["seed"])
            if found is not None:
                sys.stderr.write(f"GUESSED {found[0]} DEAL {found[1]} GAME {msg['game']}\n")
                sys.stderr.flush()
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
