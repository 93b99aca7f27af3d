"""A bot that takes SLOW_MS milliseconds over every decision, then answers the first legal action."""

import json
import os
import sys
import time


def main() -> None:
    delay = int(os.environ.get("SLOW_MS", "100")) / 1000.0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            reply = {"type": "hello", "name": "slow", "version": "1"}
        elif msg["type"] == "turn":
            sys.stderr.write(f"turn at {time.monotonic():.4f}\n")
            sys.stderr.flush()
            time.sleep(delay)
            reply = {"type": "action", "id": msg["id"], **msg["legal"][0]}
        elif msg["type"] == "shutdown":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
