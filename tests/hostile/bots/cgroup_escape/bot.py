#!/usr/bin/env python3
"""Hostile bot: at hello, starts a child that leaves the bot's cgroups and then hops pids to outlive the match.

The child writes its pid into every root cgroup.procs it can (as root: out of the
bot's cpu, memory and pids groups), then forks, exits, and goes on in the new
child in a new session, as fast as it can: no pid, group or session the referee saw
lives long.
There are $ESCAPE_CHAINS (8) such children, each hopping on its own; chain N
rewrites "<pid> <escaped>" in $ESCAPE_REPORT.N every 20 ms (the pid as the host sees
it; escaped: 1 once no cgroup of the harness holds it). Each gives up after
$ESCAPE_SECONDS (60), so a test run that fails leaves nothing for long. Plays uniformly at random (stdlib only). Part of
tests/hostile.
"""

import glob
import json
import os
import random
import sys
import time


def escape() -> None:
    for procs in ["/sys/fs/cgroup/cgroup.procs", *glob.glob("/sys/fs/cgroup/*/cgroup.procs")]:
        try:
            with open(procs, "w") as fh:
                fh.write(str(os.getpid()))
        except OSError:
            pass


def escaped() -> int:
    with open("/proc/self/cgroup") as fh:
        return int("llama-harness" not in fh.read())


def host_pid() -> int:
    """This process's pid in the host's /proc (in a PID namespace, os.getpid() is another number)."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def hop(report: str, seconds: float) -> None:
    """The child: never returns."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # hold none of the bot's pipes
        os.dup2(devnull, fd)
    escape()
    out = escaped()
    end = time.monotonic() + seconds
    written = 0.0
    while (now := time.monotonic()) < end:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.01)
            continue
        if pid:
            os._exit(0)
        os.setsid()
        if now - written > 0.02:  # a hop is a fork; the report is rewritten every 20 ms
            written = now
            with open(report + ".tmp", "w") as fh:
                fh.write(f"{host_pid()} {out}\n")
            os.replace(report + ".tmp", report)
    os._exit(0)


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            for chain in range(int(os.environ.get("ESCAPE_CHAINS", "8"))):  # a kill must catch every one
                if os.fork() == 0:
                    hop(f"{os.environ['ESCAPE_REPORT']}.{chain}", float(os.environ.get("ESCAPE_SECONDS", "60")))
            reply = {"type": "hello", "name": "cgroup-escape", "version": "1"}
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
