"""Verify many replays: folders and globs in, one line per bad file, on every core.

A league holds thousands of replays. Each file is read and checked on its own (a few
hundred records, streamed line by line), in a process pool when there are many, and
the results come back in the order of the paths, so the output is stable.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError

SUFFIXES = (".jsonl", ".jsonl.gz")
_POOL_FROM = 64  # below this many files, starting a pool costs more than it saves
_CHUNK = 32  # files per task sent to a worker: fewer round trips


def is_replay(path: Path) -> bool:
    return path.name.endswith(SUFFIXES)


def expand(paths: Sequence[str | Path]) -> list[Path]:
    """Files, folders (every replay below, sorted) and globs (``**`` too) → replay files.

    Raise HarnessError naming a path that does not exist or a folder or glob without a
    replay in it.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if is_replay(p) and p.is_file())
            if not inside:
                raise HarnessError(f"{path}: no replay files ({', '.join(SUFFIXES)}) in this folder")
            found.extend(inside)
        elif path.exists() or not glob.has_magic(str(raw)):
            found.append(path)  # a missing file is reported by the reader, in its own words
        else:
            matched = sorted(Path(p) for p in glob.glob(str(raw), recursive=True))
            files = [p for p in matched if p.is_file() and is_replay(p)]
            if not files:
                raise HarnessError(f"{raw}: no replay file matches")
            found.extend(files)
    return list(dict.fromkeys(found))  # a file named twice is checked once


def is_batch(paths: Sequence[str]) -> bool:
    """True for several paths, a folder or a glob: the many-files form of ``--verify``."""
    if len(paths) != 1:
        return True
    path = Path(paths[0])
    return path.is_dir() or (not path.exists() and glob.has_magic(paths[0]))


@dataclass(frozen=True)
class Verdict:
    path: Path
    records: int
    problem: str | None  # None: the file verifies

    def line(self) -> str:
        return f"{self.path}: {self.problem}" if self.problem else f"{self.path}: ok ({self.records} records)"


def verify_file(path: Path) -> Verdict:
    """Read and re-simulate one replay; a damaged or unreadable file is a problem, not an error."""
    from harness.replay.io import read_replay
    from harness.replay.verify import verify

    try:
        records = read_replay(path)
    except HarnessError as err:
        text = str(err)
        return Verdict(path, 0, text.removeprefix(f"{path}:").lstrip() or text)
    problem = verify(records)
    return Verdict(path, len(records), None if problem is None else str(problem))


def _verify_chunk(paths: Sequence[Path]) -> list[Verdict]:
    return [verify_file(path) for path in paths]


def _chunks(paths: Sequence[Path], size: int) -> Iterator[Sequence[Path]]:
    for start in range(0, len(paths), size):
        yield paths[start : start + size]


def verify_many(paths: Sequence[Path], jobs: int | None = None) -> Iterator[Verdict]:
    """Yield a verdict per path, in order; ``jobs`` worker processes (default: the cores)."""
    jobs = jobs or len(os.sched_getaffinity(0))
    if jobs <= 1 or len(paths) < _POOL_FROM:
        yield from map(verify_file, paths)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for verdicts in pool.map(_verify_chunk, _chunks(paths, _CHUNK)):
            yield from verdicts


__all__ = ["SUFFIXES", "Verdict", "expand", "is_batch", "is_replay", "verify_file", "verify_many"]
