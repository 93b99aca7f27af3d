"""The state of one L.L.A.M.A. game: whose turn, legal actions, apply, and each seat's view.

Pure: every card comes from the injected ``dealer`` (round number → Deal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.games.base import IllegalAction, Step, Transition
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
# (top, holds top, holds next, may draw) -> the legal actions and their wire form: at
# most 56 positions, so a turn builds no list and hashes no action
_LEGAL: dict[tuple[int, bool, bool, bool], tuple[list[Action], list[dict[str, object]]]] = {}


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
        self.last_actor = 0
        self.last_player_to_play: int | None = None
        self.over = False
        self.adjudicated = False
        self.public: list[dict[str, Any]] = []  # public events of the current round
        self._legal: list[Action] | None = None
        self._wire: list[dict[str, object]] = []
        self.first_transition = self._start_round(0)

    # -- the turn ---------------------------------------------------------------------

    def to_move(self) -> int | None:
        """Return the seat to act, or None when the game is over."""
        return self.current

    def can_draw(self) -> bool:
        if not self.stock:
            return False
        return self.quit.count(False) > 1

    def legal_actions(self) -> list[Action]:
        """Return the legal actions of the seat to move: plays (one per value), draw, quit.

        The list is shared (cached per turn, and across positions alike): do not mutate it.
        """
        # the referee asks for them to build the turn, to parse and to apply
        if self._legal is None:
            self._legal, self._wire = self._lookup()
        return self._legal

    def legal_wire(self) -> list[dict[str, object]]:
        """The legal actions as sent to a bot (shared lists: do not mutate them)."""
        if self._legal is None:
            self._legal, self._wire = self._lookup()
        return self._wire

    def _lookup(self) -> tuple[list[Action], list[dict[str, object]]]:
        if self.current is None:
            return [], []
        top = self.discard
        hand = self.hands[self.current]
        key = (top, top in hand, next_card(top) in hand, self.can_draw())
        found = _LEGAL.get(key)
        if found is None:
            actions = [PLAY[card] for card, held in ((top, key[1]), (next_card(top), key[2])) if held]
            if key[3]:
                actions.append(DRAW)
            actions.append(QUIT)
            found = _LEGAL[key] = (actions, [action.wire() for action in actions])
        return found

    def parse_action(self, data: Mapping[str, Any]) -> Action:
        """Turn a wire action into an :class:`Action`; raise IllegalAction if not legal now."""
        kind = data.get("action")
        if kind == "play":
            card = data.get("card")
            action = PLAY.get(card) if isinstance(card, int) else None
            if action is None:
                raise IllegalAction(f"no such card {card!r}")
        elif kind == "draw":
            action = DRAW
        elif kind == "quit":
            action = QUIT
        else:
            raise IllegalAction(f"unknown action {kind!r}")
        if action not in self.legal_actions():
            raise IllegalAction(self._why_illegal(action))
        return action

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

    forced_action = QUIT

    def apply(self, action: Action) -> Step:
        """Apply a legal ``action`` for the seat to move. Raise IllegalAction otherwise."""
        seat = self.current
        if seat is None:
            raise IllegalAction("the game is over")
        if action not in self.legal_actions():
            raise IllegalAction(self._why_illegal(action))
        hand = self.hands[seat]
        self._legal = None
        record: dict[str, Any]
        if action.kind is _PLAY:
            card = action.card or 0
            hand.remove(card)
            self.discard = card
            self.last_player_to_play = seat
            record = {"action": "play", "card": card}
            public = {"seat": seat, "action": "play", "card": card}
        elif action.kind is _DRAW:
            drawn = self.stock.pop()
            hand.append(drawn)
            record = {"action": "draw", "drawn": drawn}
            public = {"seat": seat, "action": "draw"}
        else:
            self.quit[seat] = True
            record = {"action": "quit"}
            public = {"seat": seat, "action": "quit"}
        self.public.append(public)
        self.last_actor = seat
        if not hand or all(self.quit):
            return Step(record=record, public=public, transitions=self._end_round(seat))
        self.current = self._next_active(seat)
        return Step(record=record, public=public, transitions=[])

    def _next_active(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            if not self.quit[other]:
                return other
        raise RuntimeError("no active player left")  # unreachable: the round would have ended

    # -- rounds -----------------------------------------------------------------------

    def _start_round(self, first: int) -> Transition:
        self.round += 1
        deal = self._dealer(self.round)
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
        return Transition(
            "round_start",
            {
                "round": self.round,
                "first": first,
                "hands": [list(hand) for hand in deal.hands],
                "discard": deal.discard,
                "stock": list(deal.stock),
            },
        )

    def _end_round(self, ender: int) -> list[Transition]:
        variant = self.options.variant
        penalties = [0 if not hand else penalty(hand, variant) for hand in self.hands]
        returned = [0] * self.players
        for seat, hand in enumerate(self.hands):
            if not hand:
                returned[seat] = chip_return(self.scores[seat])
        for seat in range(self.players):
            self.scores[seat] += penalties[seat] - returned[seat]
        self.current = None
        transitions = [
            Transition(
                "round_end",
                {
                    "round": self.round,
                    "penalties": penalties,
                    "returned": returned,
                    "scores": list(self.scores),
                },
            )
        ]
        if max(self.scores) >= self.options.end_score:
            self.over = True
        elif self.round >= self.options.max_rounds:
            self.over = self.adjudicated = True
        else:
            transitions.append(self._start_round(self._next_starter(ender)))
        return transitions

    def _next_starter(self, ender: int) -> int:
        rule = self.options.next_starter
        if rule is NextStarter.ROTATE:
            return (self.starter + 1) % self.players
        if rule is NextStarter.LAST_PLAY and self.last_player_to_play is not None:
            return self.last_player_to_play
        return ender

    # -- what a seat may see ----------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """Return everything ``seat`` may see now, and nothing more (what a player at a real table sees)."""
        return {
            "round": self.round,
            "hand": sorted(self.hands[seat]),
            "discard": self.discard,
            "stock": len(self.stock),
            "players": [
                {"cards": len(hand), "quit": quit, "score": score}
                for hand, quit, score in zip(self.hands, self.quit, self.scores, strict=True)
            ],
        }

    def round_start_notice(self, seat: int) -> dict[str, Any]:
        """The start of a round as ``seat`` sees it."""
        view = self.view(seat)
        view["first"] = self.starter
        return view


__all__ = ["Dealer", "LlamaState"]
