#!/usr/bin/env python3
"""Hostile bot: at start-up, reports on stderr what it can see of the host; then plays at random.

For each path in $PEEK_PATHS: "PEEK SEEN <path>" when it exists (beyond the way to its
own folder). Then "PEEK ROOT <names>"
(what /root holds) and "PEEK PIDS <n>" (processes in /proc). The tests give it odd
command lines (a shebang through /tmp/.., a symlinked argv[0]) to widen what is shown.
Stdlib only. Part of tests/hostile.
"""

import json
import os
import random
import sys


def _seen(path: str) -> bool:
    """True when ``path`` exists, unless it is only the way to its own folder (a snapshot in the output folder)."""
    if not os.path.exists(path):
        return False
    real, own = os.path.realpath(path), os.path.realpath(os.getcwd())
    if not own.startswith(real + os.sep):
        return True
    here = real
    for part in own[len(real) + 1 :].split(os.sep):  # anything beside the way down counts
        if os.listdir(here) != [part]:
            return True
        here = os.path.join(here, part)
    return False


def peek() -> None:
    for path in filter(None, os.environ.get("PEEK_PATHS", "").split(os.pathsep)):
        if _seen(path):
            sys.stderr.write(f"PEEK SEEN {path}\n")
    try:
        names = sorted(os.listdir("/root"))
    except OSError:
        names = []
    sys.stderr.write(f"PEEK ROOT {json.dumps(names)}\n")
    pids = [name for name in os.listdir("/proc") if name.isdigit()]
    sys.stderr.write(f"PEEK PIDS {len(pids)}\n")
    sys.stderr.flush()


def main() -> None:
    rng = random.Random(0)
    peek()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "peek", "version": "1"}
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
