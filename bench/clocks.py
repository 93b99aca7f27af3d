"""Fair clocks under load: do bots well inside their limit ever time out with --jobs = cores?

Runs ``--matches`` matches in ``--jobs`` parallel processes (as a league does), each
between three copies of a bot that works ``--work-ms`` per move (busy CPU, not sleep)
under a ``--limit-ms`` move limit, then reports time-outs per 10,000 moves and the
distribution of move times measured by the referee.

    python bench/clocks.py                       # jobs = cores, 5 ms work, 100 ms limit
    python bench/clocks.py --sandbox bwrap --matches 8 --games 20

Then the CPU-hog case (``--hog-matches``, 0 to skip): in each match, pinned to one core
as a league worker is, a bot that thinks ``--think-ms`` (150) of CPU a move plays a
bot that starts 40 busy children, each in its own session, at hello; the thinker's
time-outs under a 1 s move limit are counted (0 expected where the cpu cgroup
controller is available).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

BOT = r'''
import json, random, sys, time
WORK = float(sys.argv[1]) / 1000.0
rng = random.Random()
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        reply = {"type": "hello", "name": "busy", "version": "1"}
    elif kind == "game_start":
        rng.seed(msg["seed"])
        continue
    elif kind == "turn":
        end = time.perf_counter() + WORK
        while time.perf_counter() < end:  # busy work, as a real search would do
            pass
        reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
    elif kind == "shutdown":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
'''


HOG = r'''
import json, os, random, sys
rng = random.Random()
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        for _ in range(40):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        reply = {"type": "hello", "name": "hog", "version": "1"}
    elif kind == "turn":
        reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
    elif kind == "shutdown":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
'''


def make_hog_bots(root: Path, think_ms: float, python: str) -> list[Path]:
    """The hog (40 busy children at hello) and a thinker that busy-works ``think_ms`` a move."""
    folders = []
    # the thinker counts its own CPU time, not the wall clock: a starved thinker is slow
    thinker = BOT.replace("time.perf_counter()", "time.thread_time()")
    for name, text, args in (("hog", HOG, ""), ("thinker", thinker, f', "{think_ms}"')):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "bot.py").write_text(text)
        (folder / "bot.toml").write_text(
            f'name = "{name}"\nversion = "1"\ncommand = ["{python}", "bot.py"{args}]\n'
        )
        folders.append(folder)
    return folders


def hog_match(job: int, folders: list[str], out: str, games: int, sandbox: str) -> dict[str, object]:
    """One hog-vs-thinker match pinned to one core; the thinker's move times and time-outs."""
    from harness.bots.manifest import load_bot
    from harness.games.llama import LLAMA_GAME
    from harness.match import Clock, MatchConfig, TableSettings, run_match
    from harness.sandbox import resolve_sandbox

    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[job % len(cores)]})
    specs = tuple(load_bot(folder) for folder in folders)
    folder = Path(out) / f"hog-{job:03d}"
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=10.0, move=1.0),
        logs=folder / "logs",
        wrapper=resolve_sandbox(sandbox),
    )
    result = run_match(MatchConfig(specs, games, 2000 + job, folder, settings))
    times: list[float] = []
    for replay in result.replays:
        with open(replay, encoding="utf-8") as fh:
            seats: set[int] = set()
            for line in fh:
                record = json.loads(line)
                if record.get("type") == "header":
                    seats = {i for i, p in enumerate(record["players"]) if p["name"] == "thinker"}
                elif record.get("type") == "action" and record.get("seat") in seats and "ms" in record:
                    times.append(record["ms"])
    mine = [fault for fault in result.faults if fault["bot"] == "thinker"]
    return {"times": times, "timeouts": sum(1 for f in mine if f["kind"] == "timeout"), "faults": len(mine)}


def make_bots(root: Path, work_ms: float, python: str) -> list[Path]:
    folders = []
    for index in range(3):
        folder = root / f"busy{index}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "bot.py").write_text(BOT)
        (folder / "bot.toml").write_text(
            f'name = "busy{index}"\nversion = "1"\ncommand = ["{python}", "bot.py", "{work_ms}"]\n'
        )
        folders.append(folder)
    return folders


def one_match(job: int, folders: list[str], out: str, games: int, limit_ms: float, sandbox: str) -> dict[str, object]:
    """Play one match in this worker; return its move times (ms) and time-out count."""
    from harness.bots.manifest import load_bot
    from harness.games.llama import LLAMA_GAME
    from harness.match import Clock, MatchConfig, TableSettings, run_match
    from harness.sandbox import resolve_sandbox

    specs = tuple(load_bot(folder) for folder in folders)
    folder = Path(out) / f"match-{job:03d}"
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=10.0, move=limit_ms / 1000.0),
        logs=folder / "logs",
        wrapper=resolve_sandbox(sandbox),
    )
    result = run_match(MatchConfig(specs, games, 1000 + job, folder, settings))
    times: list[float] = []
    for replay in result.replays:
        with open(replay, encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                if record.get("type") == "action" and "ms" in record:
                    times.append(record["ms"])
    timeouts = sum(1 for fault in result.faults if fault["kind"] == "timeout")
    others = [f"{fault['kind']}: {fault['detail']}" for fault in result.faults if fault["kind"] != "timeout"]
    return {"times": times, "timeouts": timeouts, "other_faults": others}


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel matches [cores]")
    parser.add_argument("--matches", type=int, default=0, help="matches in all [2 x jobs]")
    parser.add_argument("--games", type=int, default=130, help="games per match [130]")
    parser.add_argument("--work-ms", type=float, default=5.0, help="busy work per move [5]")
    parser.add_argument("--limit-ms", type=float, default=100.0, help="move time limit [100]")
    parser.add_argument("--sandbox", choices=["auto", "bwrap", "none"], default="none")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the bots")
    parser.add_argument("--hog-matches", type=int, default=0, help="CPU-hog matches [jobs]; -1 skips")
    parser.add_argument("--hog-games", type=int, default=4, help="games per CPU-hog match [4]")
    parser.add_argument("--think-ms", type=float, default=150.0, help="the thinker's CPU per move [150]")
    args = parser.parse_args()
    matches = args.matches or 2 * args.jobs
    with tempfile.TemporaryDirectory(prefix="llama-clocks-") as tmp:
        root = Path(tmp)
        folders = [str(f) for f in make_bots(root / "bots", args.work_ms, args.python)]
        started = time.monotonic()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [
                pool.submit(one_match, job, folders, str(root / "out"), args.games, args.limit_ms, args.sandbox)
                for job in range(matches)
            ]
            results = [future.result() for future in futures]
        elapsed = time.monotonic() - started
    times = sorted(t for r in results for t in r["times"])  # type: ignore[attr-defined]
    timeouts = sum(int(r["timeouts"]) for r in results)  # type: ignore[call-overload]
    others = [o for r in results for o in r["other_faults"]]  # type: ignore[attr-defined]
    moves = len(times) + timeouts
    print(f"clocks: {matches} matches x {args.games} games, --jobs {args.jobs} on {os.cpu_count()} cores, "
          f"sandbox {args.sandbox}, {elapsed:.1f} s")
    print(f"bot work {args.work_ms:g} ms per move (busy CPU), move limit {args.limit_ms:g} ms")
    print(f"moves answered: {len(times)}   time-outs: {timeouts}   "
          f"time-outs per 10,000 moves: {10000 * timeouts / max(moves, 1):.2f}")
    if times:
        print("move time ms: " + "  ".join(
            f"{label} {value:.2f}"
            for label, value in (
                ("min", times[0]),
                ("median", statistics.median(times)),
                ("p90", percentile(times, 0.90)),
                ("p99", percentile(times, 0.99)),
                ("p99.9", percentile(times, 0.999)),
                ("max", times[-1]),
            )
        ))
        over = sum(1 for t in times if t > args.limit_ms / 2)
        print(f"moves over half the limit: {over} ({100 * over / len(times):.3f} %)")
    if others:
        print(f"other faults: {len(others)}; first: {others[0]}")
    hog_timeouts = 0 if args.hog_matches < 0 else hog_case(args)
    return 0 if timeouts == 0 and not others and hog_timeouts == 0 else 1


def hog_case(args: argparse.Namespace) -> int:
    """Run the CPU-hog matches; print the thinker's figures; return its time-outs."""
    from harness import cgroups

    matches = args.hog_matches or args.jobs
    with tempfile.TemporaryDirectory(prefix="llama-clocks-hog-") as tmp:
        root = Path(tmp)
        folders = [str(f) for f in make_hog_bots(root / "bots", args.think_ms, args.python)]
        started = time.monotonic()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [
                pool.submit(hog_match, job, folders, str(root / "out"), args.hog_games, args.sandbox)
                for job in range(matches)
            ]
            results = [future.result() for future in futures]
        elapsed = time.monotonic() - started
    times = sorted(t for r in results for t in r["times"])  # type: ignore[attr-defined]
    timeouts = sum(int(r["timeouts"]) for r in results)  # type: ignore[call-overload]
    faults = sum(int(r["faults"]) for r in results)  # type: ignore[call-overload]
    controllers = ", ".join(sorted(cgroups.available())) or "none"
    print(f"cpu hog: {matches} matches x {args.hog_games} games, each pinned to one core, "
          f"sandbox {args.sandbox}, cgroup controllers: {controllers}, {elapsed:.1f} s")
    print(f"thinker: {args.think_ms:g} ms CPU a move beside a bot with 40 busy children; move limit 1000 ms")
    print(f"thinker moves answered: {len(times)}   time-outs: {timeouts}   other faults: {faults - timeouts}")
    if times:
        print("thinker move time ms: " + "  ".join(
            f"{label} {value:.1f}"
            for label, value in (
                ("min", times[0]),
                ("median", statistics.median(times)),
                ("p99", percentile(times, 0.99)),
                ("max", times[-1]),
            )
        ))
    return timeouts


if __name__ == "__main__":
    sys.exit(main())
