#!/usr/bin/env python3
"""A rule-based L.L.A.M.A. bot (protocol v1).

Standard library only and no import of the harness: copy this folder anywhere and it
still works. The rules it follows, in order:

1. If a card can be played, play one: the one that leaves the lowest hand penalty;
   on a tie the value held most often (duplicates first, so a run stays playable),
   then the card equal to the discard top (the top stays where our cards are).
2. Otherwise quit when the hand penalty is low, when the stock is nearly empty, or
   when an opponent is about to play out; else draw.
"""

import json
import random
import sys

LLAMA = 7
QUIT_AT = 5  # a hand penalty this low is taken rather than risking a draw
MIN_STOCK = 3  # drawing from a nearly empty stock is rarely worth it


def next_card(card):
    """The card that may follow ``card``: 1→2→…→6→Llama→1."""
    return card % 7 + 1


def penalty(hand):
    """Sum of distinct numbers, plus 10 for one or more Llamas (standard rules)."""
    numbers = sum(set(card for card in hand if card != LLAMA))
    return numbers + (10 if LLAMA in hand else 0)


def choose(turn, rng):
    """Return the action (a dict from turn["legal"]) for this turn."""
    legal = turn["legal"]
    hand = turn["hand"]
    plays = [a for a in legal if a["action"] == "play"]
    if plays:

        def rank(action):
            card = action["card"]
            rest = list(hand)
            rest.remove(card)
            return (penalty(rest), -hand.count(card), card != turn["discard"], rng.random())

        return min(plays, key=rank)
    can_draw = any(a["action"] == "draw" for a in legal)
    me = turn["seat"]
    others = [p for s, p in enumerate(turn["players"]) if s != me and not p["quit"]]
    someone_nearly_out = any(p["cards"] <= 1 for p in others)
    if can_draw and penalty(hand) > QUIT_AT and turn["stock"] >= MIN_STOCK and not someone_nearly_out:
        return {"action": "draw"}
    return {"action": "quit"}


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "hello":
            reply = {"type": "hello", "name": "heuristic", "version": "1.0"}
        elif kind == "game_start":
            rng.seed(msg["seed"])  # reproducible games
            continue
        elif kind == "turn":
            reply = {"type": "action", "id": msg["id"], **choose(msg, rng)}
        elif kind == "shutdown":
            return
        else:
            continue  # round_start, round_end, game_end, and any future message type
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()  # stdout is a pipe: without a flush the referee waits in vain


if __name__ == "__main__":
    main()
