"""A readable step-through of a Llama Llama replay: the whole table, or what one seat saw."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from harness.games.llama_llama.cards import Card, parse_card_set
from harness.terminal import inline


def _plain(record: Any) -> dict[str, Any]:
    """A record as a dict (the reader gives pydantic models, the tests plain dicts)."""
    if isinstance(record, Mapping):
        return dict(record)
    dumped: dict[str, Any] = record.model_dump(mode="json", exclude_none=True)
    return dumped


class _Names:
    """How cards and holders read in the text."""

    def __init__(self, cards: Mapping[int, Card], names: Sequence[str]) -> None:
        self.cards = cards
        self.names = names
        self.players = len(names)

    def card(self, card: int) -> str:
        return f"{card}{self.cards[card].letter}"

    def cards_text(self, cards: Sequence[int]) -> str:
        return " ".join(self.card(c) for c in sorted(cards)) or "nothing"

    def face(self, card: int) -> str:
        c = self.cards[card]
        return f"{self.card(card)} ({c.top_letter}={c.top_points} | {c.bottom}={c.bottom_points})"

    def holder(self, holder: int) -> str:
        if holder < self.players:
            return f"{self.names[holder]} (seat {holder})"
        return f"dummy {holder - self.players + 1}" if self.players == 2 else "the dummy"


def render_text(records: Sequence[Any], seat: int | None = None) -> Iterator[str]:
    """Yield one text block per step; with ``seat`` only what that seat could see."""
    rows = [_plain(r) for r in records]
    header = rows[0]
    players = header["players"]
    names = [inline(p["name"]) for p in players]  # strings from a file: each stays on its line
    n = len(names)
    card_set = parse_card_set(header["options"]["card_set"], "the replay header")
    show = _Names(card_set.cards, names)
    who = "the whole table" if seat is None else show.holder(seat)
    yield (
        f"Llama Llama · game {header.get('match', 1)} · seed {header['seed']} · card set "
        f"{card_set.name!r} · as seen by {who}\n   "
        + "  ".join(f"{s}:{name}" for s, name in enumerate(names))
    )
    totals = [0] * n
    round_no = 0
    ring: list[int] = []
    for row in rows[1:]:
        kind = row["type"]
        mine = seat is None or row.get("seat") == seat
        if kind == "round_start":
            round_no, ring = row["round"], row["ring"]
            order = " → ".join(show.holder(h) for h in ring)
            lines = [f"── round {round_no} · passing left: {order} → (back to the first)"]
            for holder, hand in enumerate(row["hands"]):
                if seat is None or holder == seat:
                    lines.append(f"   {show.holder(holder)}: {show.cards_text(hand)}")
            yield "\n".join(lines)
        elif kind == "action":
            s = row["seat"]
            forced = " (forced)" if row.get("forced") else ""
            if row["action"] == "goal":
                what = f"chooses goal {show.face(row['card'])}" if mine else "chooses a goal card"
            else:
                count = len(row["cards"])
                what = (
                    f"passes {show.cards_text(row['cards'])}"
                    if mine
                    else f"passes {count} card{'s' if count > 1 else ''}"
                )
            yield f"   {show.holder(s)} {what}{forced}"
        elif kind == "goals":
            yield _goals_text(row, show, seat, round_no, totals)
        elif kind == "reveal":
            yield (
                f"   display {row['display']} is revealed: {show.face(row['card'])}"
                + (f" · everyone passes {row['count']}" if row["count"] else " · no pass")
            )
        elif kind == "pass":
            lines = []
            for move in row["moves"]:
                by, to = move["by"], move["to"]
                if seat is None:
                    lines.append(
                        f"     {show.holder(by)} → {show.holder(to)}: {show.cards_text(move['cards'])}"
                    )
                elif to == seat:
                    lines.append(
                        f"     {show.holder(seat)} receives {show.cards_text(move['cards'])} from {show.holder(by)}"
                    )
            yield "\n".join(lines) if lines else "     (the passes are delivered)"
        elif kind == "round_end":
            totals = list(row["scores"])
            yield _round_end_text(row, show, seat)
        elif kind == "fault":
            yield f"   !! FAULT {show.holder(row['seat'])}: {inline(row['kind'])}: {inline(row['detail'])}"
        elif kind == "game_end":
            yield _game_end_text(row, show)


def _goals_text(
    row: Mapping[str, Any], show: _Names, seat: int | None, round_no: int, totals: Sequence[int]
) -> str:
    if seat is None:
        lines = ["   goals placed face down:"]
        for holder in range(show.players, len(row["chosen"])):
            lines.append(f"     {show.holder(holder)} adds {show.face(row['chosen'][holder])} at random")
        for display, (holder, card) in enumerate(zip(row["owners"], row["displays"], strict=True), 1):
            lines.append(f"     display {display}: {show.card(card)} from {show.holder(holder)}")
        return "\n".join(lines)
    shown = round_no > 1 and list(totals).count(totals[seat]) == 1
    if shown:
        display = row["owners"].index(seat) + 1
        return f"   goals placed face down · your goal is on display {display}"
    return "   goals placed face down · you do not know which display holds yours"


def _round_end_text(row: Mapping[str, Any], show: _Names, seat: int | None) -> str:
    scored = row["round_scores"]
    totals = row["scores"]
    parts = [f"{show.names[s]} scores {scored[s]} (total {totals[s]})" for s in range(show.players)]
    best = max(totals)
    leaders = [show.names[s] for s in range(show.players) if totals[s] == best]
    lead = f"{' and '.join(leaders)} {'lead' if len(leaders) > 1 else 'leads'} with {best}"
    lines = [f"── round {row['round']} ends: " + ", ".join(parts) + f"; {lead}."]
    for s, goals in enumerate(row["breakdown"]):
        if seat is not None and s != seat:
            continue
        detail = "; ".join(
            f"display {g['display']} {show.card(g['card'])}: {g['top']} + {g['bottom']}" for g in goals
        )
        lines.append(f"   {show.holder(s)}: {detail}")
    return "\n".join(lines)


def _game_end_text(row: Mapping[str, Any], show: _Names) -> str:
    winners = [show.names[s] for s in row["winners"]]
    if not winners:
        head = "nobody wins"
    elif len(winners) == 1:
        head = f"{winners[0]} wins"
    else:
        head = f"{' and '.join(winners)} share the win"
    lines = [f"══ game over after {row['rounds']} rounds: {head}"]
    order = sorted(range(show.players), key=lambda s: (row["placements"][s], s))
    for s in order:
        lost = " (forfeit)" if row["forfeited"][s] else ""
        lines.append(f"   place {row['placements'][s]}: {show.names[s]} with {row['scores'][s]}{lost}")
    return "\n".join(lines)


__all__ = ["render_text"]
