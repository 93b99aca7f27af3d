"""The conditions a bot ran under, for its faults: the limits in force, and what it got of the CPU.

A bot that fails at start-up is told its limits (:func:`limits_note`): under rlimits
alone, a runtime that needs more than they allow fails in ways that do not name them.

Was a late bot slow, or starved? Where bots have no per-bot CPU control (no cpu
cgroup: any non-root user here), a bot that starts busy children slows every other
bot, and a victim's time-out is not the victim's doing. At a time-out (never per move)
the referee reads, for every thread of the bot's processes,
``/proc/PID/task/TID/schedstat`` — the time it ran, and the time it was runnable but
waiting for a CPU — and whether it is on a run queue now (state R in ``stat``): the
kernel counts a wait only when it ends, so a bot that never got a CPU in the window
has waited all of it. A bot that waited for a CPU longer than it ran was starved by a
busy machine; a bot that neither ran nor waited was asleep (its own doing: a lost
flush, a hang), and one that ran all along was just slow.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness import cgroups

NS = 1e-9
MIN_WINDOW = 0.25  # seconds: a shorter look at the bot says too little; its whole life is used instead


@dataclass(frozen=True)
class CpuSample:
    """The CPU the bot's live threads had used, and waited for, by ``at`` (time.monotonic)."""

    at: float
    ran: float  # seconds on a CPU
    waited: float  # seconds runnable, waiting for a CPU (counted by the kernel when a wait ends)
    runnable: bool = False  # a thread was on a run queue (state R) at ``at``


def sample(pids: Iterable[int]) -> CpuSample | None:
    """What the threads of ``pids`` ran and waited so far; None where the kernel keeps no schedstat."""
    ran = waited = 0
    seen = runnable = False
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as fh:
                    fields = fh.read().split()
                ran += int(fields[0])
                waited += int(fields[1])
                seen = True
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as fh:
                    runnable |= fh.read().rsplit(b")", 1)[1].split()[0] == b"R"
    return CpuSample(time.monotonic(), ran * NS, waited * NS, runnable) if seen else None


def busy_note(before: CpuSample | None, after: CpuSample | None, born: float) -> str | None:
    """The reason for a time-out when the bot was starved of CPU, else None.

    ``before``: a sample at the deadline (None, or one too close to ``after``: the
    bot's whole life, since ``born``). Starved: it waited for a CPU longer than it ran,
    and for over a quarter of the time looked at.
    """
    if after is None:
        return None
    if before is None or after.at - before.at < MIN_WINDOW:
        before, span = CpuSample(born, 0.0, 0.0), f"since it started {after.at - born:.2f} s ago"
    else:
        span = f"in the {after.at - before.at:.2f} s after the deadline"
    window = after.at - before.at
    ran = max(0.0, after.ran - before.ran)
    waited = max(0.0, after.waited - before.waited)
    if (before.runnable or after.runnable) and ran < window / 4:
        # on a run queue and it hardly ran: the wait going on is not counted yet (the
        # kernel adds a wait when it ends), and on a crowded core it is most of the window
        waited = max(waited, window - ran)
    if window <= 0 or waited <= ran or waited < window / 4:
        return None
    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    return (
        f"it got {ran:.2f} s of CPU and waited {waited:.2f} s for one {span}: the machine was busy "
        f"(load {load:.1f} on {cores} cores) and bots here share the CPU without per-bot control "
        "(no cpu cgroup; see 'Limits without root' in docs/sandbox.md)"
    )


def limits_note(wrapper: Sequence[str]) -> str:
    """The limits a bot started with ``wrapper`` runs under, for a fault at start-up.

    "limits: memory 2048 MB for all its processes (cgroup), …" where a memory cgroup
    holds; else "under rlimits: data 2048 MiB per process (RLIMIT_DATA; …), …; see …".
    """
    parts = []
    groups = cgroups.limits_in(wrapper)
    options = dict(arg[2:].split("=", 1) for arg in wrapper if arg.startswith("--") and "=" in arg)
    if "memory" in groups:
        parts.append(f"memory {groups['memory'] >> 20} MB for all its processes (cgroup)")
    elif "data" in options:
        parts.append(f"data {int(options['data']) >> 20} MiB per process (RLIMIT_DATA; no memory cgroup here)")
    elif "as" in options:
        parts.append(f"address space {int(options['as']) >> 20} MB per process (RLIMIT_AS; no memory cgroup here)")
    if "pids" in groups:
        parts.append(f"{groups['pids']} processes and threads")
    if "nofile" in options:
        parts.append(f"{options['nofile']} open files")
    if "cpu" in groups:
        parts.append(f"{groups['cpu']} core's worth of CPU")
    if not parts:
        return "no resource limits"
    if "memory" in groups:
        return "limits: " + ", ".join(parts)
    return "under rlimits: " + ", ".join(parts) + "; see 'Limits without root' in docs/sandbox.md"


__all__ = ["CpuSample", "busy_note", "limits_note", "sample"]
