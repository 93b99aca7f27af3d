"""Referee overhead per decision, as a ratio to a bare pipe loop run in the same process.

Run: ``python bench/overhead.py [--games N] [--repeats R]``

For L.L.A.M.A. (one seat acts at a time) and then for Llama Llama (all four seats
decide at once at every step):

1. A capture run records every message the harness sends to each bot in a 4-player
   match of minimal bots (first legal action), in order.
2. Timed, alternating R times: the harness playing the same match (validation, rules,
   replay writing, timing), and a baseline loop that writes the same messages through
   pipes to the same kind of bot processes, started as the harness starts them (own
   session, the harness's bot environment), and reads each reply, with no validation
   (for a simultaneous step it writes the four turns, then reads the four replies).
   Both run pinned to the same core (a pipe round trip costs ~6 µs on one core and
   33-46 µs across cores here).
3. The rules engine alone: random games per second, no processes.

The last two lines are ``overhead ratio: X.XX`` (L.L.A.M.A.) and ``overhead ratio
llama-llama: X.XX`` (harness ÷ baseline, per decision).

Each game's figures also give the CPU time (the referee's and its bots', user and
system) per decision, and its ratio: on one core the wall time is that CPU time when
nothing else runs, so the two ratios agree on an idle machine; on a busy one the wall
time counts whatever else ran on the core (the ratio of each run moves by 2x or more)
while the CPU time stays near the bench's own.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.bots.manifest import load_bot
from harness.bots.process import bot_environment
from harness.games import get_game
from harness.match import Clock, Table, TableSettings, seating_for
from harness.protocol import session as session_module
from harness.seeds import derive_seed

_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(end: bool = False) -> float:
    """CPU time (user + system) of this process and every process below it, in seconds.

    The children's times are read from /proc (``utime``, ``stime``: whole ticks), as
    they run: they are not reaped by then. This process's own time is read after that
    scan of /proc at the start of a measurement and before it at its ``end``, so that
    the scans are not counted.
    """
    own = 0.0 if end else None
    if end:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        own = usage.ru_utime + usage.ru_stime
    parents, ticks = {os.getpid()}, 0
    stats = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    stats.append((int(entry), fh.read().rsplit(b")", 1)[1].split()))
            except OSError:
                continue  # gone meanwhile
    grown = True
    while grown:  # descendants: children first, then theirs
        grown = False
        for pid, fields in stats:
            if pid not in parents and int(fields[1]) in parents:
                parents.add(pid)
                ticks += int(fields[11]) + int(fields[12])
                grown = True
    if own is None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        own = usage.ru_utime + usage.ru_stime
    return own + ticks / _TICK

MINIMAL_BOT = r"""
import json, sys
def main():
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        t = msg["type"]
        if t == "turn":
            out.write(json.dumps({"type": "action", "id": msg["id"], **msg["legal"][0]}) + "\n")
            out.flush()
        elif t == "hello":
            out.write('{"type":"hello","name":"minimal","version":"1"}\n')
            out.flush()
        elif t == "shutdown":
            return
main()
"""


def make_bots(root: Path, count: int, game: str = "llama") -> list[Path]:
    folders = []
    for index in range(count):
        folder = root / f"minimal{index}"
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(MINIMAL_BOT)
        (folder / "bot.toml").write_text(
            f'name = "minimal{index}"\nversion = "1"\ncommand = ["{sys.executable}", "bot.py"]\n'
            f'games = ["{game}"]\n'
        )
        folders.append(folder)
    return folders


def play(folders: list[Path], games: int, out: Path, name: str = "llama") -> tuple[float, int, float]:
    """Play the match through the harness; return (seconds, decisions, CPU seconds)."""
    specs = [load_bot(folder) for folder in folders]
    names = [spec.name for spec in specs]
    game = get_game(name)
    settings = TableSettings(
        game=name, options=game.parse_options({}), clock=Clock(10.0, 5.0), logs=out / "logs"
    )
    decisions = 0
    with Table(specs, settings, games, hold_replays=True) as table:  # as a league job plays
        # start every process before timing: the baseline's processes are started untimed too
        for player in table.players.values():
            player.begin({"type": "game_start", "game": 0, "seat": 0, "players": 4, "seed": 0})
        cpu = cpu_seconds()
        start = time.perf_counter()
        for index in range(games):
            result = table.play(
                index + 1,
                seating_for(names, index),
                derive_seed(7, index + 1),
                out / "replays" / f"g{index}.jsonl",
            )
            decisions += result.moves
        table.flush()  # the replays still held in memory: written inside the timed part
        elapsed = time.perf_counter() - start
        cpu = cpu_seconds(end=True) - cpu
    return elapsed, decisions, cpu


def capture(folders: list[Path], games: int, out: Path, name: str = "llama") -> list[tuple[str, bytes, bool]]:
    """Run the match once, recording (bot, line, expects_reply) for every message sent."""
    sent: list[tuple[str, bytes, bool]] = []
    original_send = session_module.BotSession.send_turn
    original_ask = session_module.BotSession.ask
    original_notify = session_module.BotSession.notify
    owner: dict[int, str] = {}

    def send_turn(self: session_module.BotSession, turn: dict[str, object]) -> None:
        original_send(self, turn)
        sent.append((owner[id(self)], session_module.encode(turn), True))

    def ask(self: session_module.BotSession, turn: dict[str, object]) -> tuple[dict[str, object], float]:
        sent.append((owner[id(self)], b"", True))  # the turn gets its id as it is sent
        slot = len(sent) - 1
        try:
            return original_ask(self, turn)
        finally:
            sent[slot] = (owner[id(self)], session_module.encode(turn), True)

    def notify(self: session_module.BotSession, message: dict[str, object]) -> None:
        original_notify(self, message)
        if message.get("game") != 0:  # not the untimed warm-up game_start
            sent.append((owner[id(self)], session_module.encode(message), False))

    original_init = session_module.BotSession.__init__

    def init(self: session_module.BotSession, transport: object, **kw: float) -> None:
        original_init(self, transport, **kw)  # type: ignore[arg-type]
        owner[id(self)] = transport.spec.name  # type: ignore[attr-defined]

    session_module.BotSession.send_turn = send_turn  # type: ignore[method-assign]
    session_module.BotSession.ask = ask  # type: ignore[method-assign]
    session_module.BotSession.notify = notify  # type: ignore[method-assign]
    session_module.BotSession.__init__ = init  # type: ignore[method-assign]
    try:
        play(folders, games, out, name)
    finally:
        session_module.BotSession.send_turn = original_send  # type: ignore[method-assign]
        session_module.BotSession.ask = original_ask  # type: ignore[method-assign]
        session_module.BotSession.notify = original_notify  # type: ignore[method-assign]
        session_module.BotSession.__init__ = original_init  # type: ignore[method-assign]
    return sent


def baseline(
    folders: list[Path], script: list[tuple[str, bytes, bool]], together: bool = False
) -> tuple[float, int, float]:
    """Send the captured messages through bare pipes and read each reply; no validation.

    Returns (seconds, decisions, CPU seconds).

    ``together``: the turns of a step (consecutive turns to different bots) are all
    written before their replies are read, as the referee asks a simultaneous step.
    """
    procs = {}
    for folder in folders:
        name = folder.name
        home = folder.parent / f"{name}-home"
        home.mkdir(exist_ok=True)
        # started as the harness starts a bot: its own session, the environment it gives
        # bots (not this shell's: PYTHONUNBUFFERED, say, would change the bot's output path)
        procs[name] = subprocess.Popen(
            [sys.executable, "bot.py"],
            cwd=folder,
            env=bot_environment(load_bot(folder), home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
    hello = b'{"type":"hello","protocol":1}\n'
    for proc in procs.values():
        assert proc.stdin and proc.stdout
        proc.stdin.write(hello)
        proc.stdin.flush()
        proc.stdout.readline()
    pipes = {name: (proc.stdin, proc.stdout) for name, proc in procs.items()}
    decisions = 0
    waiting: list[str] = []
    cpu = cpu_seconds()
    start = time.perf_counter()
    for name, line, expects_reply in script:
        stdin, stdout = pipes[name]
        assert stdin and stdout
        if waiting and (not expects_reply or name in waiting or not together):
            for other in waiting:
                pipes[other][1].readline()  # type: ignore[union-attr]
            decisions += len(waiting)
            waiting = []
        stdin.write(line)
        stdin.flush()
        if expects_reply:
            waiting.append(name)
    for other in waiting:
        pipes[other][1].readline()  # type: ignore[union-attr]
    decisions += len(waiting)
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(end=True) - cpu
    for proc in procs.values():
        assert proc.stdin
        proc.stdin.close()
        proc.wait()
    return elapsed, decisions, cpu


def engine_speed(games: int) -> float:
    """Random games per second through the rules engine alone."""
    game = get_game("llama")
    options = game.parse_options({})
    rng = random.Random(1)
    start = time.perf_counter()
    for seed in range(games):
        state = game.new_game(options, 4, seed)
        state.begin()
        while acting := state.acting():
            state.apply([rng.choice(state.legal_actions(seat)) for seat in acting])
    return games / (time.perf_counter() - start)


def measure(root: Path, name: str, games: int, repeats: int, core: int) -> float:
    """Print the harness and baseline figures of a 4-player match of ``name``; return the ratio."""
    folders = make_bots(root / name, 4, name)
    script = capture(folders, games, root / name / "capture", name)
    turns = sum(1 for _, _, reply in script if reply)
    together = name != "llama"
    print(
        f"{name}: 4 minimal bots, {games} games, {turns} decisions, "
        f"{len(script)} messages, pinned to core {core}"
    )
    harness_runs, base_runs, harness_cpu, base_cpu = [], [], [], []
    for repeat in range(repeats):
        seconds, decisions, cpu = play(folders, games, root / name / f"run{repeat}", name)
        harness_runs.append(seconds / decisions)
        harness_cpu.append(cpu / decisions)
        seconds, decisions, cpu = baseline(folders, script, together)
        base_runs.append(seconds / decisions)
        base_cpu.append(cpu / decisions)
    h, b = statistics.median(harness_runs), statistics.median(base_runs)
    # each run beside the baseline run next to it: how far the ratio moves from run to run
    pairs = sorted(x / y for x, y in zip(harness_runs, base_runs, strict=True))
    print(
        f"  harness:  {h * 1e6:7.1f} µs per decision (median of {repeats}; "
        f"min {min(harness_runs) * 1e6:.1f})"
    )
    print(
        f"  baseline: {b * 1e6:7.1f} µs per decision (median of {repeats}; "
        f"min {min(base_runs) * 1e6:.1f})"
    )
    print(f"  ratio of each run to the baseline beside it: {pairs[0]:.2f}-{pairs[-1]:.2f}")
    hc, bc = statistics.median(harness_cpu), statistics.median(base_cpu)
    cpu_pairs = sorted(x / y for x, y in zip(harness_cpu, base_cpu, strict=True))
    print(
        f"  CPU (referee and bots): harness {hc * 1e6:.1f} µs, baseline {bc * 1e6:.1f} µs per decision; "
        f"ratio {hc / bc:.2f} (each run: {cpu_pairs[0]:.2f}-{cpu_pairs[-1]:.2f})"
    )
    return h / b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--core", type=int, default=None, help="core to pin to [default: last]")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    core = args.core if args.core is not None else cores[-1]
    os.sched_setaffinity(0, {core})  # children inherit it: referee and bots share the core
    with tempfile.TemporaryDirectory(prefix="llama-bench-") as tmp:
        root = Path(tmp)
        llama = measure(root, "llama", args.games, args.repeats, core)
        # a Llama Llama game has ~80 decisions against L.L.A.M.A.'s ~170: twice the games
        simultaneous = measure(root, "llama-llama", 2 * args.games, args.repeats, core)
    print(f"rules engine: {engine_speed(2000):.0f} random 4-player games per second (in-process)")
    print(f"overhead ratio: {llama:.2f}")
    print(f"overhead ratio llama-llama: {simultaneous:.2f}")


if __name__ == "__main__":
    main()
