#!/usr/bin/env python3
"""A rule-based Llama Llama bot (protocol v1 envelope): it plays for the goals it knows.

Goal phase: choose the card whose goal face scores best on the rest of the hand (our own
goal is sure to be revealed). Pass phase: keep the cards that score best under every goal
known so far (the revealed ones and our own), pass the others. Ties: lowest ids.

Standard library only: copy this folder anywhere and it still works.
"""

import json
import sys
from collections import Counter
from itertools import combinations


class Faces:
    """Every card's letter and goal face, from hello.options.card_set."""

    def __init__(self, card_set: dict) -> None:
        self.letter = {}
        self.goal = {}
        for card in card_set["cards"]:
            self.letter[card["id"]] = card["letter"]
            need = Counter(card["bottom"]["letters"])
            self.goal[card["id"]] = (card["top"]["letter"], card["top"]["points"], need, card["bottom"]["points"])

    def score(self, hand, goals) -> int:
        """The points ``hand`` (card ids) scores under ``goals`` (card ids), each on its own."""
        counts = Counter(self.letter[card] for card in hand)
        total = 0
        for goal in goals:
            top, top_points, need, bottom_points = self.goal[goal]
            total += top_points * counts[top]
            # a card is never used twice within one combination
            total += bottom_points * min(counts[letter] // copies for letter, copies in need.items())
        return total

    def potential(self, hand) -> int:
        """A tie-break: how many pairs of equal letters the hand holds (flexible for later goals)."""
        counts = Counter(self.letter[card] for card in hand)
        return sum(n * n for n in counts.values())


def choose(turn: dict, faces: Faces) -> dict:
    hand = turn["hand"]
    if turn["phase"] == "goal":
        best = max(
            turn["legal"],
            key=lambda a: (faces.score([c for c in hand if c != a["card"]], [a["card"]]), -a["card"]),
        )
        return best
    goals = [d["goal"] for d in turn["displays"] if d["goal"] is not None]
    if turn["goal"] is not None and turn["goal"] not in goals:
        goals.append(turn["goal"])  # ours is still face down: it will be revealed and score
    best, best_key = None, None
    for action in turn["legal"]:
        kept = [c for c in hand if c not in action["cards"]]
        key = (faces.score(kept, goals), faces.potential(kept))
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best


def main() -> None:
    faces = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            faces = Faces(msg["options"]["card_set"])
            reply = {"type": "hello", "name": "ll-heuristic", "version": "1.0"}
        elif kind == "turn":
            reply = {"type": "action", "id": msg["id"], **choose(msg, faces)}
        elif kind == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
