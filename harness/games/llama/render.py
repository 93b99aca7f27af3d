"""A readable step-through of a L.L.A.M.A. replay: the whole table, or what one seat saw."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from harness.games.llama.records import (
    ActionRecord,
    FaultRecord,
    GameEndRecord,
    Header,
    RoundEndRecord,
    RoundStartRecord,
)
from harness.terminal import inline


def card_name(card: int) -> str:
    return "L" if card == 7 else str(card)


def hand_text(hand: Sequence[int]) -> str:
    return "[" + " ".join(card_name(c) for c in sorted(hand)) + "]"


def render_text(records: Sequence[Any], seat: int | None = None) -> Iterator[str]:
    """Yield one text block per step; with ``seat`` only what that seat could see."""
    header = records[0]
    assert isinstance(header, Header)  # read_replay() guarantees it
    names = [inline(p.name) for p in header.players]  # bots' strings: each stays on its line
    width = max(len(name) for name in names)
    who = "the whole table" if seat is None else f"seat {seat} ({names[seat]})"
    yield (
        f"{header.game} {header.variant} · game {header.match} · seed {header.seed} · as seen by {who}\n"
        + "  ".join(
            f"{s}:{name} {inline(p.version)}" for s, (name, p) in enumerate(zip(names, header.players, strict=True))
        )
    )
    hands: list[list[int]] = []
    discard = 0
    stock = 0
    for record in records[1:]:
        if isinstance(record, RoundStartRecord):
            hands = [list(h) for h in record.hands]
            discard, stock = record.discard, len(record.stock)
            lines = [
                f"── round {record.round} · seat {record.first} starts · discard {card_name(discard)} · stock {stock}"
            ]
            for s, hand in enumerate(hands):
                if seat is None or s == seat:
                    lines.append(f"   {s} {names[s]:<{width}} {hand_text(hand)}")
            if seat is None:
                lines.append("   stock (top first): " + " ".join(card_name(c) for c in record.stock))
            yield "\n".join(lines)
        elif isinstance(record, ActionRecord):
            s = record.seat
            if record.action == "play" and record.card is not None:
                hands[s].remove(record.card)
                discard = record.card
                what = f"plays {card_name(record.card)}"
            elif record.action == "draw" and record.drawn is not None:
                hands[s].append(record.drawn)
                stock -= 1
                what = f"draws {card_name(record.drawn)}" if seat in (None, s) else "draws"
            else:
                what = "quits"
            extra = " (forced)" if record.forced else ""
            timing = f" {record.ms:.1f} ms" if record.ms is not None else ""
            shown = f"  hand {hand_text(hands[s])}" if seat in (None, s) else f"  {len(hands[s])} cards"
            yield f"  {s} {names[s]:<{width}} {what:<9}{extra}{timing}  | top {card_name(discard)} stock {stock}{shown}"
        elif isinstance(record, FaultRecord):
            yield f"  !! FAULT seat {record.seat} ({names[record.seat]}): {record.kind}: {inline(record.detail)}"
        elif isinstance(record, RoundEndRecord):
            yield f"── round {record.round} ends\n" + "\n".join(
                f"   {names[s]}: {p} penalty{f', returns {r}' if r else ''} → {t}"
                for s, (p, r, t) in enumerate(
                    zip(record.penalties, record.returned, record.scores, strict=True)
                )
            )
        elif isinstance(record, GameEndRecord):
            win = ", ".join(names[s] for s in record.winners) or "nobody"
            note = " (adjudicated: round cap)" if record.adjudicated else ""
            yield (
                f"══ game over after {record.rounds} rounds{note} · winner: {win}\n"
                + "\n".join(
                    f"   place {place}: {names[s]} score {score}{' (forfeit)' if lost else ''}"
                    for place, s, score, lost in sorted(
                        zip(
                            record.placements,
                            range(len(names)),
                            record.scores,
                            record.forfeited,
                            strict=True,
                        )
                    )
                )
            )
