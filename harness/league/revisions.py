"""A league that grows: more games, new bots, retired bots, recorded as revisions of the league.

The stored schedule is the league's history and is never rewritten: a revision only
appends jobs (for the bots entered now, balanced among them from here on) and cancels
the unfinished jobs of retired bots. Their finished games stay and count in the
ratings. What decides how a game is played (rules, clocks, limits, table size, seed,
duplicate deals) cannot change; nor can a bot's files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.league.schedule import Job, ScheduledGame, make_schedule
from harness.league.store import Store
from harness.seeds import derive_seed

# What a revision may change; everything else in the identity is fixed for the league's life.
GROWABLE = ("bots", "games")


@dataclass(frozen=True)
class Revision:
    """What a new config changes in a stored league, and the jobs that change adds."""

    added: tuple[str, ...]
    retired: tuple[str, ...]
    games: tuple[int, int]  # the game target before and after
    cancel: tuple[int, ...]  # unfinished jobs of retired bots
    jobs: tuple[Job, ...]

    def describe(self) -> str:
        parts = []
        if self.games[0] != self.games[1]:
            parts.append(f"games {self.games[0]} -> {self.games[1]}")
        if self.added:
            parts.append("added " + ", ".join(self.added))
        if self.retired:
            parts.append("retired " + ", ".join(self.retired))
        scheduled = sum(len(job.games) for job in self.jobs)
        parts.append(f"{scheduled} games scheduled, {len(self.cancel)} unfinished jobs cancelled")
        return "; ".join(parts)


def fixed_change(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The first setting other than the bots and the game target that differs, as a message."""
    for key in new:
        if key in GROWABLE or key == "schedule":
            continue
        if old.get(key, _DEFAULTS.get(key)) != new[key]:
            return f"the league config changed ({key}: {old.get(key)!r} -> {new[key]!r})"
    return None


_DEFAULTS: dict[str, Any] = {"kind": "league"}


def plan(store: Store, new: dict[str, Any]) -> Revision | None:
    """The revision that turns the stored league into ``new`` (an identity), or None if equal.

    Raises ValueError with a one-line reason when the change is not a growth: fewer
    games, or a new bot set with no games left to schedule for it.
    """
    old = store.meta("identity") or {}
    old_bots, new_bots = list(old.get("bots", [])), list(new["bots"])
    before, after = int(old.get("games", 0)), int(new["games"])
    if old_bots == new_bots and before == after:
        return None
    if after < before:
        # say what to type: after a run with more --games, the quick start's command (the
        # default --games) lands here
        raise ValueError(
            f"games: {before} -> {after}: a league keeps every game it has; it can only grow "
            f"(add --games {before} to resume it)"
        )
    added = tuple(name for name in new_bots if name not in old_bots)
    retired = tuple(name for name in old_bots if name not in new_bots)
    size = int(new["table_size"])
    if len(new_bots) < size:
        raise ValueError(f"bots: {len(new_bots)} left, fewer than the table size {size}")
    cancel = tuple(store.unfinished_with(set(retired)))
    scheduled = store.counts()[1] - store.games_in(cancel)
    extra = after - scheduled
    if extra <= 0 and added:
        raise ValueError(
            f"bots: {', '.join(added)} added, but the league's {scheduled} games are all scheduled; "
            f"raise --games above {scheduled} to schedule games for the new set"
        )
    revision = len(store.revisions())
    jobs: tuple[Job, ...] = ()
    if extra > 0:
        last_job, last_game = store.last_ids()
        # the revision's own table order and deals (hashed from the league's secret)
        secret = f"{store.meta('secret') or ''}/revision{revision}"
        order = derive_seed(new["seed"] if new["seed"] is not None else 0, "revision", revision)
        fresh = make_schedule(new_bots, size, extra, order, bool(new["duplicate"]), secret=secret)
        jobs = tuple(
            Job(
                last_job + 1 + job.job_id,
                job.bots,
                tuple(
                    # deal groups of a revision are its own: the cluster names say which
                    ScheduledGame(last_game + g.game_id, g.seating, g.seed, f"r{revision}{g.cluster}")
                    for g in job.games
                ),
            )
            for job in fresh
        )
    return Revision(added, retired, (before, after), cancel, jobs)
