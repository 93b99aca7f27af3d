"""Opening a league folder for a run: the one path every run kind takes before its first job.

The folder is checked against the bots (:func:`harness.league.outfolder.check_out`),
the sandbox resolved once (a bad mode or limit fails before any game, and warns once)
with the folder and the bots' folders hidden, every bot sealed into the folder's
snapshot store and checked against the sandbox's view, and the results database opened:
created with its secret and schedule, resumed, revised, or refused when it holds
another run. What differs between run kinds (the identity, how a stored run is
compared, the jobs a new run starts with) is an :class:`Opening`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import Any

from harness.bots.build import seal_bots
from harness.bots.snapshot import SnapshotStore, remove_tree
from harness.errors import HarnessError
from harness.league.config import LeagueConfig
from harness.league.outfolder import check_out
from harness.league.revisions import Revision, fixed_change, plan
from harness.league.runner import LOGS, REPLAYS
from harness.league.schedule import Job, iter_gauntlet, iter_schedule, match_schedule
from harness.league.store import DB_NAME, Store
from harness.match import SNAPSHOTS
from harness.sandbox import check_bots, hiding, resolve_sandbox
from harness.sandbox_types import Wrapper
from harness.seeds import new_secret, seed_secret

# (why the stored run cannot become this one, or None; the revision that makes it this one)
Compare = Callable[[Store, dict[str, str]], tuple[str | None, Revision | None]]


@dataclass(frozen=True)
class Opening:
    """What a run kind stores and checks when it opens a folder."""

    identity: dict[str, Any]  # what must match for a stored run to be resumed
    compare: Compare
    schedule: Callable[[str], Iterable[Job]]  # a new run's first jobs, dealt from its secret
    refusal: str  # what to do instead, after "<folder>: <problem>; "
    secret: str | None = None  # a new run's secret (None: drawn, or the one its seed stands for)
    restart: bool = False  # with force: start over even when the store holds this very run


def fixed(config: LeagueConfig) -> Opening:
    """A fixed schedule (a league, a gauntlet, a match): stored whole when the run starts."""
    identity = config.identity()
    return Opening(
        identity,
        lambda store, digests: _compare(store, identity, digests),
        lambda secret: _schedule(config, secret),
        "run it with another --out, or add --force to discard its results and start over",
    )


def sequential(identity: dict[str, object], secret: str | None) -> Opening:
    """A run scheduled as it goes (SPRT, until decided): nothing stored up front."""
    stored = json.loads(json.dumps(identity))  # as the store will hand it back
    return Opening(
        stored,
        lambda store, digests: (_another_run(store, stored, digests), None),
        lambda _: (),
        "use another --out, or --force to start over",
        secret=secret,
        restart=True,
    )


def resolve_wrapper(config: LeagueConfig, out: Path, wrapper: Wrapper | EllipsisType | None) -> Wrapper | None:
    """The run's sandbox: ``wrapper`` as given (None: none), or ``...``: the one ``config.sandbox`` names.

    Raises HarnessError for an ``out`` nested with a bot's folder, an unavailable
    sandbox, a bad limit or runtime, or a bot that cannot start in the sandbox's view.
    """
    check_out(out, config.bots)
    if not isinstance(wrapper, EllipsisType):
        return wrapper
    hidden = (out.resolve(), *(bot.folder for bot in config.bots))
    resolved = hiding(resolve_sandbox(config.sandbox, config.limits, config.runtimes), *hidden)
    check_bots(resolved, config.bots)
    return resolved


def sealed(config: LeagueConfig, folder: Path, wrapper: Wrapper | None) -> LeagueConfig:
    """``config`` with every bot running from its snapshot in the league folder (built first).

    Raises HarnessError naming the bot whose folder or build cannot be sealed.
    """
    for stale in SnapshotStore(folder / SNAPSHOTS).staged():  # left by a killed run (we hold the lock)
        remove_tree(stale)
    bots = seal_bots(config.bots, folder / SNAPSHOTS, folder / LOGS, wrapper)
    # a built program, or its #! interpreter, outside the sandbox's view (the others are checked before the build)
    check_bots(wrapper, [bot for bot in bots if bot.build])
    return dataclasses.replace(config, bots=bots)


def open_store(config: LeagueConfig, folder: Path, force: bool, opening: Opening) -> tuple[Store, bool]:
    """Open or create the run's store for the sealed ``config``; return it and whether it resumes a run.

    Raises HarnessError when the folder holds another run (unless ``force``: then its
    results and replays are discarded) or a damaged database (``force``: moved aside).
    """
    rows = [(b.name, str(b.origin), b.digest(), b.version) for b in config.bots]
    digests = {name: digest for name, _, digest, _ in rows}
    store = _open_store(folder, force)
    try:
        fresh = store.is_new() or (force and opening.restart)
        if not fresh:
            problem, revision = opening.compare(store, digests)
            if problem and not force:
                raise HarnessError(f"{folder}: {problem}; {opening.refusal}")
            if problem:
                shutil.rmtree(folder / REPLAYS, ignore_errors=True)
                fresh = True
            elif revision is not None:
                store.extend(
                    opening.identity, config.to_dict(), rows, revision.cancel, revision.jobs, revision.describe()
                )
        if fresh:
            _no_strangers(folder, force)
            # the deals come from the run's secret: drawn once, kept in the store, reused on resume
            secret = opening.secret or _secret_for(config)
            store.create(opening.identity, config.to_dict(), rows, opening.schedule(secret), secret=secret)
    except BaseException:
        store.close()
        raise
    return store, not fresh


def _secret_for(config: LeagueConfig) -> str:
    """A new run's secret: drawn, or the public one its explicit seed stands for."""
    return new_secret() if config.seed is None else seed_secret(config.seed)


def _schedule(config: LeagueConfig, secret: str) -> Iterator[Job]:
    if config.kind == "match":
        return iter(match_schedule(config.names, config.games, secret))
    seed = config.seed if isinstance(config.seed, int) else 0  # orders the tables; the deals come from the secret
    if config.gauntlet:
        return iter_gauntlet(config.gauntlet, config.field_names, config.table_size, config.games, seed, secret)
    return iter_schedule(config.names, config.table_size, config.games, seed, config.duplicate, secret)


def _no_strangers(folder: Path, force: bool) -> None:
    """Refuse to start in a folder holding replays or a summary that no results database describes.

    (A match folder of an older harness, or files put there by hand.) ``force`` discards them.
    """
    strangers = [p for p in (folder / REPLAYS, folder / "summary.json") if p.exists()]
    if strangers and not force:
        raise HarnessError(
            f"{folder}: holds {' and '.join(p.name for p in strangers)} of another match or league "
            "but no results database; run it with another --out, or add --force to discard them"
        )
    shutil.rmtree(folder / REPLAYS, ignore_errors=True)
    (folder / "summary.json").unlink(missing_ok=True)


def _open_store(folder: Path, force: bool) -> Store:
    """Open the league's database; with ``force``, move a damaged one aside and start anew."""
    path = folder / DB_NAME
    try:
        store = Store(path)
        try:
            store.is_new()
        except HarnessError:
            store.close()
            raise
        return store
    except HarnessError:
        if not force:
            raise
    for suffix in ("", "-wal", "-shm"):
        damaged = path.with_name(path.name + suffix)
        if damaged.exists():
            damaged.replace(damaged.with_name(damaged.name + ".damaged"))
    shutil.rmtree(folder / REPLAYS, ignore_errors=True)
    return Store(path)


def _compare(store: Store, new: dict[str, Any], digests: dict[str, str]) -> tuple[str | None, Revision | None]:
    """(why the stored league cannot become this one, or None; the revision that does it, if any)."""
    old = store.meta("identity") or {}
    secretless = store.secret_problem()
    if secretless is not None:
        return secretless, None
    if "match" in (old.get("kind"), new["kind"]):
        return _another_match(old, new, store.bot_digests(), digests), None
    problem = fixed_change(old, new)
    if problem:
        return f"{problem} since this league started", None
    stored = store.bot_digests()
    for name, digest in digests.items():
        if name in stored and stored[name] != digest:
            return f"bot {name!r} changed (its folder's files differ) since this league started", None
    try:
        return None, plan(store, new)
    except ValueError as err:
        return str(err), None


def _another_match(old: dict[str, Any], new: dict[str, Any], stored: dict[str, str], digests: dict[str, str]) -> str | None:
    """A match folder holds one match: say how the stored one differs from this one, or None."""
    if old.get("kind", "league") != new["kind"]:
        return f"holds a {old.get('kind', 'league')}, not a {new['kind']}"
    for key in new:
        if key != "schedule" and old.get(key) != new[key]:
            return f"holds another match ({key}: {old.get(key)!r} -> {new[key]!r})"
    for name, digest in digests.items():
        if stored.get(name) != digest:
            return f"holds a match of another version of bot {name!r} (its folder's files differ)"
    return None


def _another_run(store: Store, identity: dict[str, Any], digests: dict[str, str]) -> str | None:
    """Why the run stored in ``store`` is not this one (its identity or a bot changed), or None."""
    old: dict[str, Any] = store.meta("identity") or {}
    for key in sorted(set(old) | set(identity)):
        if old.get(key) != identity.get(key):
            return f"holds another run ({key}: {old.get(key)!r} -> {identity.get(key)!r})"
    stored = store.bot_digests()
    for name, digest in digests.items():
        if stored.get(name) != digest:
            return f"holds a run of another version of bot {name!r} (its folder's files differ)"
    return None


__all__ = ["Opening", "fixed", "open_store", "resolve_wrapper", "sealed", "sequential"]
