"""The state of one Llama Llama game: who acts, legal actions, the joint apply, each seat's view.

Pure: the cards of round r come from ``random.Random("llama-llama:<seed>:<r>")`` (so a
round's deal does not depend on play: duplicate deals rely on it) and every other
chance event (dummy goals and passes, the 3-player dummy's place, tie shuffles) from a
second generator of that round; all of them are written into the replay records.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from harness.games.base import IllegalAction, InvalidReply, Outcome
from harness.games.llama_llama.rules import (
    DEAL,
    HOLDERS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    GoalScore,
    Options,
    canonical,
    dummy_place,
    place_goals,
    ring_of,
    score_hand,
)

GOAL, PASS, OVER = "goal", "pass", "over"


@dataclass(frozen=True, slots=True)
class Action:
    """A seat's choice: its goal card (``kind`` "goal", one card) or the cards it passes."""

    kind: str
    cards: tuple[int, ...]

    def wire(self) -> dict[str, object]:
        if self.kind == GOAL:
            return {"action": GOAL, "card": self.cards[0]}
        return {"action": PASS, "cards": list(self.cards)}

    def __str__(self) -> str:
        if self.kind == GOAL:
            return f"goal {self.cards[0]}"
        return f"pass {list(self.cards)}"


_STEP_CACHES = frozenset({"_legal", "_wires", "_held", "_checked", "_public"})
_INTS = frozenset({int})


def _card_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class LlamaLlamaState:
    """One game, from the first deal to the end; mutated by :meth:`apply`."""

    def __init__(self, options: Options, players: int, seed: int) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {players!r}")
        self.options = options
        self.cards = options.card_set.cards
        self.players = players
        self.seed = seed
        self.scores = [0] * players
        self.round = 0
        self.over = False
        self.adjudicated = False  # 4 rounds or 100 points: both are the rules' own end
        self.phase = GOAL
        self.round_scores: list[list[int]] = []  # by round, then seat
        self.hands: list[list[int]] = [[] for _ in range(HOLDERS)]  # by holder: seats, then dummies
        self.ring: list[int] = []
        self.goal: list[int | None] = [None] * players  # each seat's own goal card this round
        self.known: list[int | None] = [None] * players  # the display a seat knows holds its goal
        self.displays: list[int] = []  # goal card by display (index 0 = display 1)
        self.revealed = 0  # displays turned face up this round
        self._chance = random.Random()
        self._dealt: tuple[tuple[int, ...], ...] = ()  # this round's hands as dealt
        self._begun = False
        self._sides = [options.card_set.side(d, players) for d in range(1, HOLDERS + 1)]
        # per seat, for the step under way: the legal actions, and their wire form (a turn
        # needs only the latter: up to 35 passes a seat, so neither is built before it is asked)
        self._legal: dict[int, list[Action]] = {}
        self._wires: dict[int, list[dict[str, object]]] = {}
        self._held: dict[int, frozenset[int]] = {}  # a seat's hand when its turn was built (parse's check)
        self._checked: dict[int, Action] = {}  # what parse_action found legal this step, by seat
        self._public: tuple[Any, ...] | None = None  # what every seat sees alike, this step

    # -- the interface ------------------------------------------------------------------

    def begin(self) -> Outcome:
        """Deal round 1: its round_start record and each seat's round_start notice."""
        if self._begun:
            raise RuntimeError("begin() was already called")
        self._begun = True
        out = Outcome()
        self._start_round(out)
        return out

    def acting(self) -> tuple[int, ...]:
        """Every player acts at once at each step; () once the game is over."""
        return () if self.over else tuple(range(self.players))

    @property
    def pass_count(self) -> int:
        """Cards each player passes at the reveal under way (its display's count)."""
        return self._sides[self.revealed - 1].pass_count if self.revealed else 0

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal choice of ``seat``: a goal (8), or each set of k cards to pass (C(7,k))."""
        found = self._legal.get(seat)
        if found is None:
            phase = self.phase
            found = self._legal[seat] = [Action(phase, cards) for cards in self._choices(seat)]
        return found

    def _legal_wire(self, seat: int) -> list[dict[str, object]]:
        """:meth:`legal_actions` as a turn shows them (``Action.wire``), built without the actions."""
        found = self._wires.get(seat)
        if found is None:
            if self.over or not 0 <= seat < self.players:
                found = []
            else:
                hand = sorted(self.hands[seat])  # canonical()
                if self.phase == GOAL:
                    found = [{"action": GOAL, "card": card} for card in hand]
                else:
                    found = [{"action": PASS, "cards": list(cards)} for cards in combinations(hand, self.pass_count)]
                self._held[seat] = frozenset(hand)
            self._wires[seat] = found
        return found

    def _choices(self, seat: int) -> list[tuple[int, ...]]:
        """The cards of each legal choice of ``seat`` now (a goal: one card), ascending."""
        if self.over or not 0 <= seat < self.players:
            return []
        hand = canonical(self.hands[seat])
        if self.phase == GOAL:
            return [(card,) for card in hand]
        return list(combinations(hand, self.pass_count))

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> Action:
        """A reply's ``action`` and ``card``/``cards`` as an Action.

        Raise InvalidReply for a field missing or of the wrong type, IllegalAction for a
        choice the rules forbid now. Other keys are ignored.
        """
        kind = reply.get("action")
        hand = self._held.get(seat)  # known once the seat's turn was built
        if hand is not None and kind == self.phase:  # the common case: a legal choice, well formed
            # legal: card ids (int, not a bool or a float) of the hand, distinct, as many as asked
            if kind == GOAL:
                card = reply.get("card")
                if type(card) is int and card in hand:
                    self._checked[seat] = action = Action(GOAL, (card,))
                    return action
            else:
                named = reply.get("cards")
                if (
                    type(named) is list
                    and len(named) == self.pass_count
                    and _INTS.issuperset(map(type, named))  # card ids: not a bool or a float
                    and hand.issuperset(named)
                    and len(set(named)) == len(named)
                ):
                    self._checked[seat] = action = Action(PASS, tuple(sorted(named)))
                    return action
        if kind == GOAL:
            card = reply.get("card")
            if not _card_id(card):
                raise InvalidReply(f"goal: card must be a card id (an integer), got {card!r}")
            action = Action(GOAL, (card,))  # type: ignore[arg-type]
        elif kind == PASS:
            cards = reply.get("cards")
            if not isinstance(cards, list) or not all(_card_id(card) for card in cards):
                raise InvalidReply(f"pass: cards must be a list of card ids (integers), got {cards!r}")
            action = Action(PASS, tuple(sorted(cards)))
        else:
            raise InvalidReply(f"action must be 'goal' or 'pass', got {kind!r}")
        problem = self._problem(seat, action)
        if problem:
            raise IllegalAction(problem)
        self._checked[seat] = action  # apply need not check it again
        return action

    def forced_action(self, seat: int) -> Action:
        """The referee's choice for a faulted seat: the first cards of its hand (ascending ids)."""
        hand = canonical(self.hands[seat])
        if self.phase == GOAL:
            return Action(GOAL, (hand[0],))
        return Action(PASS, tuple(hand[: self.pass_count]))

    def apply(self, actions: Sequence[Action]) -> Outcome:
        """Apply the joint action (one per seat of :meth:`acting`, in order); atomic.

        Raise IllegalAction, changing nothing, if any action is not legal now.
        """
        acting = self.acting()
        if not acting:
            raise IllegalAction("the game is over")
        if len(actions) != len(acting):
            raise IllegalAction(f"{len(actions)} actions for {len(acting)} acting seats")
        checked = self._checked
        for seat, action in zip(acting, actions, strict=True):
            if checked.get(seat) is action:  # the very object parse_action found legal
                continue
            problem = self._problem(seat, action)
            if problem:
                raise IllegalAction(f"seat {seat}: {problem}")
        out = Outcome(actions=[action.wire() for action in actions])
        self._new_step()
        if self.phase == GOAL:
            self._choose_goals(actions, out)
        else:
            self._pass(actions, out)
        self._advance(out)
        return out

    def view(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may see now and nothing more: never another hand or a hidden goal.

        The public lists (displays, ring, scores) are shared by every seat's view of a
        step: do not mutate them.
        """
        return self._view(seat, {})

    def turn(self, seat: int) -> dict[str, Any]:
        """The body of ``seat``'s turn: its view and its legal actions."""
        body = self._view(seat, {"seat": seat})
        body["legal"] = self._legal_wire(seat)
        return body

    def _view(self, seat: int, into: dict[str, Any]) -> dict[str, Any]:
        """:meth:`view`'s fields, added to ``into`` in their order."""
        rnd, phase, display, count, displays, ring, scores, round_scores = self._public or self._step_view()
        into["round"] = rnd
        into["phase"] = phase
        into["display"] = display
        into["count"] = count
        into["hand"] = canonical(self.hands[seat])
        into["goal"] = self.goal[seat]
        into["goal_display"] = self.known[seat]
        into["displays"], into["ring"], into["scores"], into["round_scores"] = displays, ring, scores, round_scores
        return into

    def deal(self) -> tuple[tuple[int, ...], ...]:
        """The hands dealt this round (seats, then dummies): from the seed and the round alone."""
        return self._dealt

    def _step_view(self) -> tuple[Any, ...]:
        """What every seat sees alike this step, built once a step, whoever asks first."""
        passing = self.phase == PASS
        self._public = public = (
            self.round,
            self.phase,
            self.revealed if passing else None,
            self.pass_count if passing else None,
            [self._display_view(d) for d in range(1, HOLDERS + 1)],
            [holder if holder < self.players else None for holder in self.ring],
            list(self.scores),
            [list(scores) for scores in self.round_scores],
        )
        return public

    def __getstate__(self) -> dict[str, Any]:
        """The state without what is worked out per step (a copy, or a fingerprint, is the game itself)."""
        return {key: value for key, value in self.__dict__.items() if key not in _STEP_CACHES}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._new_step()

    def _new_step(self) -> None:
        """Forget what was worked out for the step just applied (legal choices, the public view)."""
        self._legal, self._wires, self._held, self._checked = {}, {}, {}, {}
        self._public = None

    # -- the steps of a round -------------------------------------------------------------

    def _display_view(self, display: int) -> dict[str, Any]:
        side = self._sides[display - 1]
        shown = self.displays[display - 1] if display <= self.revealed and self.displays else None
        return {"display": display, "passes": side.pass_count, "dummy": side.dummy, "goal": shown}

    def _problem(self, seat: int, action: Action) -> str | None:
        if self.over:
            return "the game is over"
        if not 0 <= seat < self.players:
            return f"seat {seat} does not act now"
        hand = self.hands[seat]
        if action.kind != self.phase:
            if self.phase == PASS:
                return f"{action}: now each player passes {self.pass_count} (display {self.revealed})"
            return f"{action}: now each player chooses a goal card"
        missing = [card for card in action.cards if card not in hand]
        if missing:
            return f"{action}: card {missing[0]} is not in your hand"
        if len(set(action.cards)) != len(action.cards):
            return f"{action}: a card is named twice"
        if action.kind == PASS and len(action.cards) != self.pass_count:
            return f"{action}: pass exactly {self.pass_count} cards at display {self.revealed}"
        return None

    def _start_round(self, out: Outcome) -> None:
        self.round += 1
        deck = list(self.cards)
        random.Random(f"llama-llama:{self.seed}:{self.round}").shuffle(deck)
        self._chance = random.Random(f"llama-llama:{self.seed}:{self.round}:chance")
        self.hands = [deck[DEAL * h : DEAL * (h + 1)] for h in range(HOLDERS)]
        self._dealt = tuple(tuple(hand) for hand in self.hands)
        self.ring = ring_of(self.players, dummy_place(self.players, self.round, self.scores, self._chance))
        self.phase = GOAL
        self.goal = [None] * self.players
        self.known = [None] * self.players
        self.displays = []
        self.revealed = 0
        self._new_step()
        out.records.append(
            {
                "type": "round_start",
                "round": self.round,
                "ring": list(self.ring),
                "hands": [list(hand) for hand in self.hands],
            }
        )
        for seat in range(self.players):
            out.notices.append((seat, self._view(seat, {"type": "round_start"})))

    def _choose_goals(self, actions: Sequence[Action], out: Outcome) -> None:
        chosen = [0] * HOLDERS
        for seat, action in enumerate(actions):
            chosen[seat] = action.cards[0]
            self.goal[seat] = action.cards[0]
        for dummy in range(self.players, HOLDERS):
            chosen[dummy] = self._chance.choice(canonical(self.hands[dummy]))
        for holder, card in enumerate(chosen):
            self.hands[holder].remove(card)
        owners, self.known = place_goals(
            self.options.card_set, self.players, self.round, chosen, self.scores, self._chance
        )
        self.displays = [chosen[holder] for holder in owners]
        out.records.append(
            {
                "type": "goals",
                "round": self.round,
                "chosen": chosen,
                "owners": owners,
                "displays": self.displays,
            }
        )
        for seat in range(self.players):
            out.notices.append(
                (
                    seat,
                    {
                        "type": "goals_placed",
                        "round": self.round,
                        "goal": self.goal[seat],
                        "goal_display": self.known[seat],
                    },
                )
            )

    def _pass(self, actions: Sequence[Action], out: Outcome) -> None:
        k = self.pass_count
        given: dict[int, list[int]] = {seat: list(action.cards) for seat, action in enumerate(actions)}
        for seat, cards in given.items():
            for card in cards:
                self.hands[seat].remove(card)
        moves: list[dict[str, Any]] = []
        received: dict[int, list[int]] = {}
        # players' cards land first; a dummy shuffles what it got into its hand and the
        # position to its left draws k at random from it (never two dummies in a row)
        for index, holder in enumerate(self.ring):
            if holder < self.players:
                target = self.ring[(index + 1) % HOLDERS]
                moves.append({"by": holder, "to": target, "cards": given[holder]})
                received[target] = given[holder]
        for index, holder in enumerate(self.ring):
            if holder >= self.players:
                self.hands[holder].extend(received.pop(holder, []))
                drawn = self._chance.sample(canonical(self.hands[holder]), k)
                for card in drawn:
                    self.hands[holder].remove(card)
                target = self.ring[(index + 1) % HOLDERS]
                moves.append({"by": holder, "to": target, "cards": drawn})
                received[target] = drawn
        for seat in range(self.players):
            self.hands[seat].extend(received[seat])
        moves.sort(key=lambda move: self.ring.index(move["by"]))
        out.records.append({"type": "pass", "display": self.revealed, "count": k, "moves": moves})
        for seat in range(self.players):
            out.notices.append(
                (
                    seat,
                    {
                        "type": "passed",
                        "round": self.round,
                        "display": self.revealed,
                        "passed": given[seat],
                        "received": canonical(received[seat]),
                    },
                )
            )

    def _advance(self, out: Outcome) -> None:
        """Reveal displays until one asks for a pass; after the fourth, score the round."""
        while self.revealed < HOLDERS:
            self.revealed += 1
            card = self.displays[self.revealed - 1]
            k = self.pass_count
            reveal = {"display": self.revealed, "card": card, "count": k}
            out.records.append({"type": "reveal", **reveal})
            for seat in range(self.players):
                out.notices.append((seat, {"type": "reveal", "round": self.round, **reveal}))
            if k > 0:
                self.phase = PASS
                return
        self._end_round(out)

    def _end_round(self, out: Outcome) -> None:
        breakdown: list[list[GoalScore]] = [
            score_hand(self.hands[seat], self.displays, self.cards) for seat in range(self.players)
        ]
        scored = [sum(g.top + g.bottom for g in goals) for goals in breakdown]
        for seat in range(self.players):
            self.scores[seat] += scored[seat]
        self.round_scores.append(scored)
        out.records.append(
            {
                "type": "round_end",
                "round": self.round,
                "round_scores": scored,
                "scores": list(self.scores),
                "breakdown": [[g.wire() for g in goals] for goals in breakdown],
            }
        )
        for seat in range(self.players):
            out.notices.append(
                (
                    seat,
                    {
                        "type": "round_end",
                        "round": self.round,
                        "goals": list(self.displays),
                        "round_scores": scored,
                        "scores": list(self.scores),
                        "breakdown": [g.wire() for g in breakdown[seat]],
                    },
                )
            )
        if max(self.scores) >= self.options.end_score or self.round >= self.options.max_rounds:
            self.over = True
            self.phase = OVER
        else:
            self._start_round(out)


__all__ = ["GOAL", "OVER", "PASS", "Action", "LlamaLlamaState"]
