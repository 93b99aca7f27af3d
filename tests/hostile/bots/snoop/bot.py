#!/usr/bin/env python3
"""Hostile bot: looks for replays through /proc/*/fd and in $SNOOP_PATHS; reports on stderr; gives up (exit 4) if it finds nothing.

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
    send({"type": "hello", "name": "snoop", "version": "1"})


def snoop() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if ".jsonl" in target or "replays" in target:
                try:
                    with open(f"/proc/{pid}/fd/{fd}", "rb") as fh:
                        found.append(f"{target} ({len(fh.read(1 << 20))} bytes via /proc/{pid}/fd/{fd})")
                except OSError:
                    found.append(f"{target} (named, unreadable)")
    own = os.path.realpath(os.getcwd())  # its own snapshot (inside the output folder) is its own to read
    for root in filter(None, os.environ.get("SNOOP_PATHS", "").split(os.pathsep)):
        for folder, _, files in os.walk(root):
            if os.path.realpath(folder) == own or os.path.realpath(folder).startswith(own + os.sep):
                continue
            for name in files:
                try:
                    with open(os.path.join(folder, name), "rb") as fh:
                        fh.read(1)
                    found.append(os.path.join(folder, name))
                except OSError:
                    pass
    return found


def turn(turns: int, msg: dict, reply: dict) -> None:
    if turns == 1:
        found = snoop()
        for item in found[:50]:
            sys.stderr.write(f"SNOOP FOUND {item}\n")
        sys.stderr.write(f"SNOOP TOTAL {len(found)}\n")
        sys.stderr.flush()
        if not found:
            sys.exit(4)  # a cheat with nothing to read has nothing to play with
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
