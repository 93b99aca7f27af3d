"""``ratings`` on a synthetic store of millions of games: wall time and peak memory.

Run as ``python bench/ratings_scale.py [--games 10000000] [--bots 100] [--keep DIR]``
from the repository root. The store is made directly in SQLite (100 bots, tables of 4,
duplicate deal groups of 4 games, places from strength + noise): 10 million games
take a few minutes to store; ``--keep DIR`` keeps (and on a later run reuses) it.
``ratings`` runs in a child process: its wall and CPU seconds and its peak RSS
(VmHWM of the child, from wait4) go to stdout. Figures in docs/league.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.league.store import DB_NAME, Store  # noqa: E402

CHUNK = 200_000  # games generated and inserted at a time (groups of 4: a multiple of 4)


def synthetic(folder: Path, games: int, bots: int, seed: int = 5) -> float:
    """Store ``games`` finished games of ``bots`` bots in ``folder``; return the seconds taken."""
    names = [f"bot{i:03d}" for i in range(bots)]
    strength = np.linspace(0, 1600, bots)
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with Store(folder / DB_NAME) as store:
        store.create({"synthetic": True}, {"synthetic": True}, [(n, "-", "-", "1") for n in names], iter(()))
        db = store.db
        db.execute("PRAGMA synchronous = OFF")
        game_id = 0
        with db:
            while game_id < games:
                groups = min(CHUNK, games - game_id) // 4 or 1
                tables = np.argsort(rng.random((groups, bots)), axis=1)[:, :4]  # 4 distinct bots a group
                # duplicate deals: the group's 4 games rotate the seats; one noise draw a deal
                rotated = np.stack([np.roll(tables, -k, axis=1) for k in range(4)], axis=1).reshape(-1, 4)
                noisy = strength[rotated] + rng.normal(0, 500, size=rotated.shape)
                places = np.argsort(np.argsort(-noisy, axis=1), axis=1) + 1
                ids = np.arange(game_id + 1, game_id + 1 + len(rotated))
                job = game_id // 4 + 1
                db.executemany(
                    "INSERT INTO jobs (job_id, bots, done) VALUES (?, '[]', 1)",
                    ((int(j),) for j in range(job, job + groups)),
                )
                db.executemany(
                    "INSERT INTO games VALUES (?, ?, ?, 0, '[]')",
                    ((int(g), int((g - 1) // 4 + 1), f"c{(g - 1) // 4}") for g in ids),
                )
                db.executemany("INSERT INTO results VALUES (?, 12, 300, 0, '-')", ((int(g),) for g in ids))
                seat_rows = (
                    (int(ids[i]), seat, names[int(rotated[i, seat])], int(10 * places[i, seat]), int(places[i, seat]))
                    for i in range(len(ids))
                    for seat in range(4)
                )
                db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, 0)", seat_rows)
                game_id += len(ids)
                print(f"  stored {game_id:,} games ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return time.perf_counter() - started


def rate(folder: Path, fmt: str) -> dict[str, float]:
    """``llama-harness ratings`` on ``folder`` in a child: wall and CPU seconds, peak RSS (MiB)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "harness", "ratings", str(folder), "--format", fmt],
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak RSS
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"ratings {folder} failed with exit code {os.waitstatus_to_exitcode(status)}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--keep", type=Path, help="keep the store in this folder (reused if it holds one)")
    parser.add_argument("--format", default="table", choices=["table", "json"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="llama-ratings-scale-") as tmp:
        folder = args.keep or Path(tmp) / "store"
        if not (folder / DB_NAME).exists():
            took = synthetic(folder, args.games, args.bots)
            print(f"stored {args.games:,} synthetic games of {args.bots} bots in {took:.0f} s"
                  f" ({(folder / DB_NAME).stat().st_size / 2**30:.2f} GiB)")
        got = rate(folder, args.format)
        print(json.dumps({"games": args.games, "bots": args.bots, "format": args.format, **got}))
        print(f"ratings --format {args.format} of {args.games:,} games: {got['wall']:.1f} s wall,"
              f" {got['cpu']:.1f} s CPU, peak {got['rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
