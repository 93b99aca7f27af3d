"""The state of one L.L.A.M.A. game on the turn model of :mod:`harness.games.base`.

One seat acts at a time. Pure: every card comes from the injected ``dealer`` (round
number → Deal). The public events of a round and each seat's cursor into them live
here: a turn carries the events since that seat's last turn, a round's end the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.games.base import IllegalAction, InvalidReply, Outcome
from harness.games.llama.rules import (
    DRAW,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAY,
    QUIT,
    Action,
    Deal,
    Kind,
    NextStarter,
    Options,
    chip_return,
    next_card,
    penalty,
)

Dealer = Callable[[int], Deal]
_PLAY, _DRAW = Kind.PLAY, Kind.DRAW  # enum attribute lookups are slow on the hot path
_ACTING: tuple[tuple[int, ...], ...] = tuple((seat,) for seat in range(MAX_PLAYERS))
_NOBODY: tuple[int, ...] = ()
_KINDS = ("play", "draw", "quit")
# (top, holds top, holds next, may draw) -> the legal actions, their wire form and their
# ids: at most 56 positions, so a turn builds no list and a legality test hashes no action
# (the actions are the singletons of rules.py: identity is equality)
_Legal = tuple[list[Action], list[dict[str, object]], frozenset[int]]
_LEGAL: dict[tuple[int, bool, bool, bool], _Legal] = {}
_NONE: _Legal = ([], [], frozenset())
# (action, card) of a well-formed reply -> the action; anything else goes through reply_action
_REPLIES: dict[tuple[object, object], Action] = {
    **{("play", card): action for card, action in PLAY.items()},
    ("draw", None): DRAW,
    ("quit", None): QUIT,
}
# public events are never mutated once made: one dict per (seat, action), shared
_EVENTS: tuple[dict[int, dict[str, Any]], ...] = tuple({} for _ in range(MAX_PLAYERS))  # by seat, by id(action)


def reply_action(reply: Mapping[str, Any]) -> Action:
    """The action a reply names; raise InvalidReply for a reply of the wrong shape.

    Exactly the semantics of the ``ActionReply`` model (strict types, extra keys
    ignored, ``card`` checked whenever given, a play names its card); a test holds the
    two together.
    """
    kind = reply.get("action")
    card = reply.get("card")
    if type(kind) is not str or kind not in _KINDS:
        raise InvalidReply(f"unknown action {kind!r} (play, draw or quit)")
    if card is not None and (type(card) is not int or not 1 <= card <= 7):
        raise InvalidReply(f"no such card {card!r} (1-6, or 7 for a Llama)")
    if kind == "play":
        if card is None:
            raise InvalidReply("no such card None (a play names its card)")
        return PLAY[card]
    return DRAW if kind == "draw" else QUIT


class LlamaState:
    """One game, from the first deal to the end; mutated by :meth:`apply`."""

    def __init__(self, options: Options, players: int, dealer: Dealer) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {players!r}")
        self.options = options
        self.players = players
        self._dealer = dealer
        self.scores = [0] * players
        self.round = 0
        self.hands: list[list[int]] = []
        self.stock: list[int] = []  # top of the stock is the END of the list
        self.discard = 0
        self.quit = [False] * players
        self.current: int | None = None
        self.starter = 0
        self.last_player_to_play: int | None = None
        self.over = False
        self.adjudicated = False
        self.public: list[dict[str, Any]] = []  # public events of the current round
        self.cursor = [0] * players  # per seat: the events it has been told of
        # what every turn shows, kept up to date by apply (a turn is built at every
        # decision): each seat's public line and each hand sorted. Replaced, never
        # mutated, so that a turn already built keeps what it showed.
        self._seats: list[dict[str, Any]] = []
        self._sorted: list[list[int]] = []
        self._legal: list[Action] | None = None
        self._wire: list[dict[str, object]] = []
        self._ids: frozenset[int] = frozenset()
        self._dealt: Deal | None = None
        self._opening = self._start_round(0)

    # -- the turn model ---------------------------------------------------------------

    def begin(self) -> Outcome:
        """The first deal: its record, and each seat's round_start."""
        return Outcome(records=[self._opening], notices=self._round_notices())

    def acting(self) -> tuple[int, ...]:
        """The seat to act, alone; () when the game is over."""
        return _NOBODY if self.current is None else _ACTING[self.current]

    def turn(self, seat: int) -> dict[str, Any]:
        """The body of ``seat``'s turn: its view, its legal actions, the events since its last turn."""
        if self._legal is None:
            self._legal, self._wire, self._ids = self._lookup()
        return {
            "seat": seat,
            "round": self.round,
            "hand": self._sorted[seat],
            "discard": self.discard,
            "stock": len(self.stock),
            "players": self._seats,
            "legal": self._wire,
            "events": self.public[self.cursor[seat] :],
        }

    def set_hand(self, seat: int, cards: Sequence[int]) -> None:
        """Give ``seat`` the hand ``cards`` (a position set up by hand, as check-bot's are)."""
        self.hands[seat] = list(cards)
        self._legal = None
        self._refresh()

    def _refresh(self) -> None:
        """Rebuild every seat's public line and sorted hand (a new round, new scores)."""
        self._seats = [
            {"cards": len(hand), "quit": quit, "score": score}
            for hand, quit, score in zip(self.hands, self.quit, self.scores, strict=True)
        ]
        self._sorted = [sorted(hand) for hand in self.hands]

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The legal actions of the seat to move (none for another seat): plays, draw, quit.

        The list is shared (cached per turn, and across positions alike): do not mutate it.
        """
        if seat is not None and seat != self.current:
            return []
        if self._legal is None:
            self._legal, self._wire, self._ids = self._lookup()
        return self._legal

    def _lookup(self) -> _Legal:
        if self.current is None:
            return _NONE
        top = self.discard
        hand = self.hands[self.current]
        key = (top, top in hand, top % 7 + 1 in hand, bool(self.stock) and self.quit.count(False) > 1)  # a draw: a stock, and another seat still in
        found = _LEGAL.get(key)
        if found is None:
            actions = [PLAY[card] for card, held in ((top, key[1]), (next_card(top), key[2])) if held]
            if key[3]:
                actions.append(DRAW)
            actions.append(QUIT)
            ids = frozenset(id(action) for action in actions)
            found = _LEGAL[key] = (actions, [action.wire() for action in actions], ids)
        return found

    def _legal_as(self, action: Action) -> Action | None:
        """The legal action equal to ``action`` (the singleton of rules.py), or None."""
        if self._legal is None:
            self._legal, self._wire, self._ids = self._lookup()
        if id(action) in self._ids:
            return action
        return next((legal for legal in self._legal if legal == action), None)  # an equal copy

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> Action:
        """The action ``reply`` names for ``seat``: InvalidReply if malformed, IllegalAction if not legal now.

        Keys other than ``action`` and ``card`` are ignored (a replay's ``drawn`` too).
        """
        kind, card = reply.get("action"), reply.get("card")
        if type(kind) is str and (card is None or type(card) is int):  # not a bool or float equal to a card
            action = _REPLIES.get((kind, card))
            if action is not None and seat == self.current and self._legal is not None and id(action) in self._ids:
                return action  # the common case: a legal action named as the wire names it
        action = reply_action(reply)
        if seat != self.current:
            raise IllegalAction(f"seat {seat} is not to move")
        legal = self._legal_as(action)
        if legal is None:
            raise IllegalAction(self._why_illegal(action))
        return legal

    def _why_illegal(self, action: Action) -> str:
        if action.kind is _PLAY:
            if action.card not in self.hands[self.current or 0]:
                return f"play {action.card}: card not in hand"
            return (
                f"play {action.card} on {self.discard}: must be {self.discard} or {next_card(self.discard)}"
            )
        if not self.stock:
            return "draw: the stock is empty"
        return "draw: no other player is still in the round"

    def forced_action(self, seat: int) -> Action:
        """What the referee plays for a faulted seat: it quits the round."""
        return QUIT

    def apply(self, actions: Sequence[Action]) -> Outcome:
        """Apply the action of the seat to move (a one-item joint action). Raise IllegalAction otherwise."""
        seat = self.current
        if seat is None:
            raise IllegalAction("the game is over")
        try:
            (action,) = actions
        except ValueError:
            raise IllegalAction(f"one action expected (seat {seat}), got {len(actions)}") from None
        if self._legal is None or id(action) not in self._ids:  # else the legal singleton itself
            legal = self._legal_as(action)
            if legal is None:
                raise IllegalAction(self._why_illegal(action))
            action = legal
        hand = self.hands[seat]
        self._legal = None
        record: dict[str, Any]
        kind = action.kind
        if kind is _PLAY:
            card = action.card or 0
            hand.remove(card)
            self.discard = card
            self.last_player_to_play = seat
            record = action.wire()
            self._sorted[seat] = sorted(hand)
        elif kind is _DRAW:
            drawn = self.stock.pop()
            hand.append(drawn)
            record = {"action": "draw", "drawn": drawn}
            self._sorted[seat] = sorted(hand)
        else:
            self.quit[seat] = True
            record = action.wire()
        seats = self._seats.copy()
        seats[seat] = {"cards": len(hand), "quit": self.quit[seat], "score": self.scores[seat]}
        self._seats = seats
        events = _EVENTS[seat]
        event = events.get(id(action))
        if event is None:
            event = events[id(action)] = {"seat": seat, **action.wire()}
        public = self.public
        public.append(event)
        self.cursor[seat] = len(public)
        if not hand or (kind is not _PLAY and kind is not _DRAW and all(self.quit)):  # only a quit ends it so
            return self._end_round(seat, record)
        # the next seat that has not quit (one has: else the round would have ended)
        quit, players, other = self.quit, self.players, seat
        while True:
            other = other + 1 if other + 1 < players else 0
            if not quit[other]:
                break
        self.current = other
        return Outcome([record], [], [])

    # -- rounds -----------------------------------------------------------------------

    def _start_round(self, first: int) -> dict[str, Any]:
        self.round += 1
        deal = self._dealt = self._dealer(self.round)
        if len(deal.hands) != self.players or any(len(h) != HAND_SIZE for h in deal.hands):
            raise ValueError(f"round {self.round}: the deal does not fit {self.players} players")
        self.hands = [list(hand) for hand in deal.hands]
        self.stock = list(reversed(deal.stock))
        self.discard = deal.discard
        self.quit = [False] * self.players
        self.current = self.starter = first
        self._legal = None
        self.last_player_to_play = None
        self.public = []
        self.cursor = [0] * self.players
        self._refresh()
        return {
            "type": "round_start",
            "round": self.round,
            "first": first,
            "hands": [list(hand) for hand in deal.hands],
            "discard": deal.discard,
            "stock": list(deal.stock),
        }

    def _round_notices(self) -> list[tuple[int, dict[str, Any]]]:
        return [
            (seat, {"type": "round_start", **self.round_start_notice(seat)}) for seat in range(self.players)
        ]

    def _end_round(self, ender: int, action: dict[str, Any]) -> Outcome:
        variant = self.options.variant
        penalties = [0 if not hand else penalty(hand, variant) for hand in self.hands]
        returned = [0] * self.players
        for seat, hand in enumerate(self.hands):
            if not hand:
                returned[seat] = chip_return(self.scores[seat])
        for seat in range(self.players):
            self.scores[seat] += penalties[seat] - returned[seat]
        self.current = None
        self._refresh()
        body = {
            "round": self.round,
            "penalties": penalties,
            "returned": returned,
            "scores": list(self.scores),
        }
        public, cursor = self.public, self.cursor
        outcome = Outcome(
            actions=[action],
            records=[{"type": "round_end", **body}],
            notices=[
                (seat, {"type": "round_end", **body, "events": public[cursor[seat] :]})
                for seat in range(self.players)
            ],
        )
        if max(self.scores) >= self.options.end_score:
            self.over = True
        elif self.round >= self.options.max_rounds:
            self.over = self.adjudicated = True
        else:
            outcome.records.append(self._start_round(self._next_starter(ender)))
            outcome.notices.extend(self._round_notices())
        return outcome

    def _next_starter(self, ender: int) -> int:
        rule = self.options.next_starter
        if rule is NextStarter.ROTATE:
            return (self.starter + 1) % self.players
        if rule is NextStarter.LAST_PLAY and self.last_player_to_play is not None:
            return self.last_player_to_play
        return ender

    # -- what a seat may see ----------------------------------------------------------

    def deal(self) -> Deal | None:
        """The current round's deal (from the dealer: the seed and the round alone)."""
        return self._dealt

    def view(self, seat: int) -> dict[str, Any]:
        """Return everything ``seat`` may see now, and nothing more (what a player at a real table sees)."""
        return {
            "round": self.round,
            "hand": self._sorted[seat],
            "discard": self.discard,
            "stock": len(self.stock),
            "players": self._seats,
        }

    def round_start_notice(self, seat: int) -> dict[str, Any]:
        """The start of a round as ``seat`` sees it (without ``type``)."""
        view = self.view(seat)
        view["first"] = self.starter
        return view


__all__ = ["Dealer", "LlamaState", "reply_action"]
