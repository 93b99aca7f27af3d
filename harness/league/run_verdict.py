"""What kind of run a league folder holds, and what it concluded: for ``ratings`` and ``report``.

A folder holds a plain league, a match (one table), an SPRT (``match --sprt``), a league
run until decided, or a gauntlet. The verdict of each is read back from the store (and
from ``summary.json`` where the run wrote one): a two-bot match's score line and Elo
difference (``harness.league.verdict.verdict``), an SPRT's LLR after every deal group,
an until-decided league's decided, equal and open pairs. Nothing here writes.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.league.store import Store, StoredGame

SUMMARY = "summary.json"


def run_kind(identity: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    """``sprt``, ``until-decided``, ``match``, ``gauntlet`` or ``league``."""
    if identity.get("sprt") is not None:
        return "sprt"
    if identity.get("until_decided") is not None:
        return "until-decided"
    if config.get("kind") == "match":
        return "match"
    if config.get("gauntlet"):
        return "gauntlet"
    return "league"


def read_summary(folder: Path) -> dict[str, Any]:
    """The run's ``summary.json`` as a dict; {} when absent or unreadable (a run still going has none)."""
    path = folder / SUMMARY
    try:
        if not path.is_file():  # a FIFO or a device named summary.json is not read
            return {}
        with path.open(encoding="utf-8") as handle:
            data = json.loads(handle.read(4_000_000))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _groups(store: Store) -> list[list[StoredGame]]:
    """The finished deal groups in group order, up to the first one not yet finished.

    A sequential run sees its groups in this order and only whole (harness.league.until):
    a group finished after an unfinished one has not been seen yet.
    """
    size = Counter(game.cluster for game in store.scheduled_games())
    rows: dict[str, list[StoredGame]] = {}
    for game in store.games():
        rows.setdefault(game.cluster, []).append(game)
    numbered = sorted((int(c[1:]), c) for c in size if c.startswith("d") and c[1:].isdigit())
    out: list[list[StoredGame]] = []
    for _, cluster in numbered:
        done = rows.get(cluster, [])
        if len(done) < size[cluster]:
            break
        out.append(sorted(done, key=lambda game: game.game_id))
    return out


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _history(raw: Any) -> list[dict[str, Any]] | None:
    """A history the run wrote itself (a list of LLRs, or of dicts holding ``llr``), as points; None if none."""
    if not isinstance(raw, list) or not raw:
        return None
    points = []
    for index, item in enumerate(raw, 1):
        llr = _finite(item.get("llr")) if isinstance(item, Mapping) else _finite(item)
        if llr is None:
            return None
        group = item.get("group", index) if isinstance(item, Mapping) else index
        games = item.get("games") if isinstance(item, Mapping) else None
        points.append({"group": group, "games": games, "llr": llr})
    return points


def sprt_track(store: Store, identity: Mapping[str, Any], summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """An SPRT's bounds, result and the LLR after each deal group it counted; None for another run.

    Recomputed from the store with harness.ratings.sprt, group by group in group order as
    the run saw them, stopping at the verdict (later groups were played, not counted);
    a history, result or LLR the run wrote into summary.json's ``sprt`` wins.
    Raises HarnessError for a damaged store.
    """
    spec = identity.get("sprt")
    bots = list(identity.get("bots") or [])
    if not isinstance(spec, list) or len(spec) != 4 or len(bots) < 2:
        return None
    from harness.league.until import pair_score
    from harness.ratings.sprt import Bounds, Sprt

    try:
        bounds = Bounds(*(float(x) for x in spec))
    except (TypeError, ValueError):
        return None
    test = Sprt(bounds)
    a, b = str(bots[0]), str(bots[1])
    history: list[dict[str, Any]] = []
    counted_all = True
    groups = _groups(store)
    for group in groups:
        test.add(pair_score(group, a, b), len(group))
        history.append({"group": len(test.scores), "games": test.games, "llr": round(test.llr, 4)})
        if test.verdict() is not None:
            counted_all = len(test.scores) == len(groups)
            break
    track: dict[str, Any] = {**test.to_dict(), "bot": a, "opponent": b, "history": history}
    track["after_stop"] = 0 if counted_all else sum(len(g) for g in groups[len(test.scores) :])
    written = summary.get("sprt")
    if isinstance(written, Mapping):
        own = _history(written.get("history"))
        if own is not None:
            track["history"] = own
        for key, value in written.items():
            if key != "history":
                track[key] = value
    track["source"] = "summary.json" if isinstance(written, Mapping) else "store"
    return track


def entrant_marks(config: Mapping[str, Any], revisions: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Per bot, what sets it apart: a gauntlet's new bot, a bot added or retired by a league revision.

    Each mark is ``{"mark": "gauntlet" | "added" | "retired", "revision": n, "text": ...}``.
    """
    marks: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for name in config.get("gauntlet") or []:
        marks.setdefault(str(name), []).append({"mark": "gauntlet", "text": "gauntlet entrant"})
    history = [(int(r.get("revision", i)), [str(n) for n in r.get("bots") or []]) for i, r in enumerate(revisions)]
    if len(history) > 1:
        first = set(history[0][1])
        seen = set(first)
        for number, bots in history[1:]:
            for name in bots:
                if name not in seen:
                    seen.add(name)
                    marks.setdefault(name, []).append(
                        {"mark": "added", "revision": number, "text": f"joined in revision {number}"}
                    )
        last = set(history[-1][1])
        for name in sorted(seen - last):
            present = max(number for number, bots in history if name in bots)
            gone = min(number for number, _ in history if number > present)
            marks.setdefault(name, []).append({"mark": "retired", "revision": gone, "text": f"retired in revision {gone}"})
    return {name: items for name, items in marks.items() if items}


def _pair(entry: Any) -> tuple[str, str] | None:
    if isinstance(entry, list | tuple) and len(entry) == 2:
        return str(entry[0]), str(entry[1])
    if isinstance(entry, Mapping):
        for keys in (("better", "worse"), ("a", "b"), ("bot", "opponent")):
            if all(key in entry for key in keys):
                return str(entry[keys[0]]), str(entry[keys[1]])
        if isinstance(entry.get("pair"), list | tuple):
            return _pair(entry["pair"])
    return None


def _is_equal(entry: Any) -> bool:
    if not isinstance(entry, Mapping):
        return False
    return bool(entry.get("equal")) or entry.get("kind") == "equal" or entry.get("relation") in ("equal", "=")


def decided_pairs(decisions: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An until-decided league's pairs, adjacent ones first: each ``decided``, ``equal`` or ``open``.

    Reads ``Ranking.to_dict()`` as stored; ``equal`` entries (``--margin``) are read from
    an ``equal`` list or from decided entries marked equal, and shown when present.
    """
    if not isinstance(decisions, Mapping):
        return None
    order = [str(name) for name in decisions.get("order") or []]
    margin = _finite(decisions.get("margin"))
    decided: dict[frozenset[str], dict[str, Any]] = {}
    equal: dict[frozenset[str], dict[str, Any]] = {}
    for entry in decisions.get("decided") or []:
        pair = _pair(entry)
        if pair is None:
            continue
        info = dict(entry) if isinstance(entry, Mapping) else {}
        (equal if _is_equal(entry) else decided)[frozenset(pair)] = {**info, "pair": list(pair)}
    for entry in decisions.get("equal") or []:
        pair = _pair(entry)
        if pair is not None:
            info = dict(entry) if isinstance(entry, Mapping) else {}
            equal[frozenset(pair)] = {**info, "pair": list(pair)}
    open_pairs = {frozenset(p) for p in (_pair(e) for e in decisions.get("undecided") or []) if p is not None}
    gauntlet = set(str(n) for n in decisions.get("gauntlet") or [])
    adjacent = _adjacent(order, gauntlet)
    rows = []
    for a, b in adjacent:
        rows.append(_row(a, b, decided, equal, open_pairs, margin, adjacent=True))
    shown = {frozenset(p) for p in adjacent}
    for key, info in sorted({**decided, **equal}.items(), key=lambda item: sorted(item[0])):
        if key not in shown:
            a, b = info["pair"]
            rows.append(_row(a, b, decided, equal, open_pairs, margin, adjacent=False))
    return {
        "confidence": _finite(decisions.get("confidence")),
        "margin": margin,
        "looks": decisions.get("looks"),
        "done": bool(decisions.get("done")),
        "pairs": rows,
    }


def _adjacent(order: Sequence[str], gauntlet: set[str]) -> list[tuple[str, str]]:
    if not gauntlet:
        return list(itertools.pairwise(order))
    pairs: list[tuple[str, str]] = []
    for index, name in enumerate(order):
        if name in gauntlet:
            above = next((o for o in reversed(order[:index]) if o not in gauntlet), None)
            below = next((o for o in order[index + 1 :] if o not in gauntlet), None)
            pairs += [(above, name)] if above is not None else []
            pairs += [(name, below)] if below is not None else []
    return pairs


def _row(
    a: str,
    b: str,
    decided: Mapping[frozenset[str], Mapping[str, Any]],
    equal: Mapping[frozenset[str], Mapping[str, Any]],
    open_pairs: set[frozenset[str]],
    margin: float | None,
    *,
    adjacent: bool,
) -> dict[str, Any]:
    key = frozenset((a, b))
    row: dict[str, Any] = {"a": a, "b": b, "adjacent": adjacent}
    if key in equal:
        info = equal[key]
        row["status"] = "equal"
        row["margin"] = _finite(info.get("margin")) if _finite(info.get("margin")) is not None else margin
        row["games"] = info.get("games")
    elif key in decided and key not in open_pairs:
        info = decided[key]
        row["status"] = "decided"
        row["better"], row["worse"] = info["pair"]
        row["games"] = info.get("games")
    elif key in decided:  # decided, but the current ranking shows it the other way round
        info = decided[key]
        row["status"] = "open"
        row["better"], row["worse"] = info["pair"]
        row["games"] = info.get("games")
    else:
        row["status"] = "open"
    return row
