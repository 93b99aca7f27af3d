"""BotSession against a scripted fake bot (no process): handshake, turns, every fault kind."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from helpers import ScriptedTransport

from harness.errors import BotCrashed, BotFault, BotTimeout, FaultKind
from harness.games.base import InvalidReply
from harness.games.llama.state import reply_action
from harness.protocol.session import BotSession, encode, invalid_reply

HELLO: dict[str, Any] = {"type": "hello", "protocol": 1, "game": "llama", "seat": 0}


def turn(**extra: Any) -> dict[str, Any]:
    return {"type": "turn", "id": 0, "game": 1, "seat": 0, "legal": [{"action": "draw"}], **extra}


def action(ident: int, act: str = "draw", **extra: Any) -> str:
    return json.dumps({"type": "action", "id": ident, "action": act, **extra})


def session(fake: ScriptedTransport, move: float = 1.0) -> BotSession:
    return BotSession(fake, startup=5.0, move=move)


def checked(asked: tuple[dict[str, Any], float]) -> tuple[dict[str, Any], float]:
    """A L.L.A.M.A. reply whose fields are checked too, as the referee checks them."""
    reply, _ = asked
    try:
        reply_action(reply)
    except InvalidReply as err:
        raise invalid_reply(reply, str(err)) from None
    return asked


def fault_of(call: Any) -> BotFault:
    with pytest.raises(BotFault) as info:
        call()
    return info.value


# -- handshake -------------------------------------------------------------------------


def test_handshake_returns_the_reply_and_uses_the_startup_deadline() -> None:
    fake = ScriptedTransport()
    fake.expect({"type": "hello", "seat": 0}, ['{"type":"hello","name":"bob","version":"2.1"}'])
    before = time.monotonic()
    reply = session(fake).handshake(dict(HELLO))
    assert (reply.name, reply.version) == ("bob", "2.1")
    # the startup deadline (5 s), not the move deadline (1 s)
    assert all(d - before > 4.0 for d in fake.deadlines)
    fake.assert_done()


def test_handshake_version_defaults_and_extra_fields_are_ignored() -> None:
    fake = ScriptedTransport()
    fake.expect(None, ['{"type":"hello","name":"bob","colour":"blue"}'])
    assert session(fake).handshake(dict(HELLO)).version == "0"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (action(1), FaultKind.INVALID),  # wrong type
        ('{"type":"hello"}', FaultKind.INVALID),  # no name
        ('{"type":"hello","name":""}', FaultKind.INVALID),
        ("hello, referee", FaultKind.MALFORMED),
        (b'{"type":"hello","name":"\xff"}', FaultKind.MALFORMED),
    ],
)
def test_handshake_faults(line: str | bytes, kind: FaultKind) -> None:
    fake = ScriptedTransport()
    fake.expect(None, [line])
    fault = fault_of(lambda: session(fake).handshake(dict(HELLO)))
    assert fault.kind is kind
    assert fault.detail.startswith("handshake: ")


def test_handshake_timeout() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [])
    assert fault_of(lambda: session(fake).handshake(dict(HELLO))).kind is FaultKind.TIMEOUT


def test_handshake_crash_propagates() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [BotCrashed("end of output")])
    assert fault_of(lambda: session(fake).handshake(dict(HELLO))).kind is FaultKind.CRASH


# -- turns ----------------------------------------------------------------------------


def test_ask_numbers_turns_and_takes_the_reply_with_the_matching_id() -> None:
    fake = ScriptedTransport()
    fake.expect({"type": "turn", "id": 1}, [action(1, "play", card=3)])
    fake.expect({"type": "turn", "id": 2}, [action(2, "quit")])
    bot = session(fake)
    reply, elapsed = bot.ask(turn())
    assert (reply["id"], reply["action"], reply["card"]) == (1, "play", 3)
    assert 0.0 <= elapsed < 1.0
    assert bot.ask(turn())[0]["action"] == "quit"
    assert bot.stale == 0
    fake.assert_done()


def test_notify_expects_no_reply() -> None:
    fake = ScriptedTransport()
    fake.expect({"type": "round_end"}, [])
    fake.expect({"type": "turn", "id": 1}, [action(1)])
    bot = session(fake)
    bot.notify({"type": "round_end", "game": 1})
    assert bot.ask(turn())[0]["id"] == 1
    fake.assert_done()


def test_extra_unknown_fields_are_ignored() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [action(1, "play", card=7, why="because", debug={"x": [1, 2]})])
    reply, _ = checked(session(fake).ask(turn()))
    assert (reply["action"], reply["card"]) == ("play", 7)


def test_a_carriage_return_before_the_newline_is_tolerated() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [action(1) + "\r"])  # a bot on Windows line endings
    assert session(fake).ask(turn())[0]["action"] == "draw"


def test_a_late_reply_to_an_earlier_turn_is_discarded() -> None:
    fake = ScriptedTransport()
    fake.expect({"id": 1}, [action(1)])
    # turn 2: first a second, late answer to turn 1 (quit), then the real answer
    fake.expect({"id": 2}, [action(1, "quit"), action(2, "play", card=4)])
    bot = session(fake)
    bot.ask(turn())
    reply, _ = bot.ask(turn())
    assert (reply["id"], reply["action"], reply["card"]) == (2, "play", 4)
    assert bot.stale == 1
    fake.assert_done()


def test_a_late_reply_of_the_wrong_shape_is_discarded_too() -> None:
    fake = ScriptedTransport()
    fake.expect({"id": 1}, [action(1)])
    fake.expect({"id": 2}, [json.dumps({"type": "action", "id": 1, "action": "pass"}), action(2)])
    bot = session(fake)
    bot.ask(turn())
    assert bot.ask(turn())[0]["id"] == 2
    assert bot.stale == 1


def test_only_late_replies_then_silence_is_a_timeout() -> None:
    fake = ScriptedTransport()
    fake.expect({"id": 1}, [action(1)])
    fake.expect({"id": 2}, [action(1)])
    bot = session(fake)
    bot.ask(turn())
    assert fault_of(lambda: bot.ask(turn())).kind is FaultKind.TIMEOUT
    assert bot.stale == 1


@pytest.mark.parametrize("ident", [2, 99])
def test_a_reply_with_a_future_id_is_invalid(ident: int) -> None:
    fake = ScriptedTransport()
    fake.expect(None, [action(ident)])
    fault = fault_of(lambda: session(fake).ask(turn()))
    assert fault.kind is FaultKind.INVALID
    assert str(ident) in fault.detail


@pytest.mark.parametrize(
    "line",
    [
        "draw",
        "",
        '{"type":"action","id":1,"action":"draw"',  # truncated
        "{'type': 'action', 'id': 1, 'action': 'draw'}",  # Python, not JSON
        b"\xff\xfe\x00{",
        b'{"type":"action","id":1,"action":"draw","note":"caf\xe9"}',  # Latin-1 inside a string
        b'\xef\xbb\xbf{"type":"action","id":1,"action":"draw"}',  # a BOM is not JSON text
        '{"type":"action","id":1,"action":"draw"}'.encode("utf-16"),
        "[" * 100_000,  # nesting that would overflow a recursive parser
    ],
)
def test_non_json_and_invalid_utf8_are_malformed(line: str | bytes) -> None:
    fake = ScriptedTransport()
    fake.expect(None, [line])
    fault = fault_of(lambda: session(fake).ask(turn()))
    assert fault.kind is FaultKind.MALFORMED
    assert len(fault.detail) < 400  # a huge line is quoted in part only


@pytest.mark.parametrize(
    "reply",
    [
        {"type": "action", "id": 1},  # missing action
        {"type": "action", "id": 1, "action": "play", "card": 9},
        {"type": "action", "id": 1, "action": "play", "card": 0},
        {"type": "action", "id": 1, "action": "pass"},
        {"type": "action", "action": "draw"},  # missing id
        {"type": "action", "id": 0, "action": "draw"},
        {"type": "hello", "name": "x"},  # a reply of the wrong type
        {"id": 1, "action": "draw"},  # no type
        {"type": "action", "id": 1, "action": "play"},  # a play names its card
        {"type": "action", "id": 1, "action": "play", "card": "3"},  # no coercion
        {"type": "action", "id": 1, "action": "play", "card": 3.0},
        {"type": "action", "id": True, "action": "draw"},
        [1, 2, 3],
        "draw",
        42,
        None,
    ],
)
def test_valid_json_of_the_wrong_shape_is_invalid(reply: Any) -> None:
    fake = ScriptedTransport()
    fake.expect(None, [json.dumps(reply)])
    fault = fault_of(lambda: checked(session(fake).ask(turn())))
    assert fault.kind is FaultKind.INVALID
    assert "does not validate" in fault.detail or "answers no turn" in fault.detail


def test_timeout_and_crash_while_waiting_for_a_turn() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [])
    assert fault_of(lambda: session(fake).ask(turn())).kind is FaultKind.TIMEOUT
    fake = ScriptedTransport()
    fake.expect(None, [BotCrashed("end of output (stdout closed)")])
    assert fault_of(lambda: session(fake).ask(turn())).kind is FaultKind.CRASH


def test_the_move_deadline_applies_to_each_turn() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [action(1)])
    before = time.monotonic()
    session(fake, move=0.25).ask(turn())
    assert all(0.0 < d - before <= 0.25 + 0.5 for d in fake.deadlines)


def test_encode_is_one_compact_line() -> None:
    data = encode({"type": "turn", "hand": [1, 7], "note": "é\n"})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data) == {"type": "turn", "hand": [1, 7], "note": "é\n"}


# -- faults that point at the cause ----------------------------------------------------


def test_a_silent_bot_times_out_with_the_limit_and_the_flush_hint() -> None:
    fake = ScriptedTransport()
    fake.expect({"id": 1}, [action(1)])
    fake.expect({"id": 2}, [])
    bot = session(fake, move=0.25)
    bot.ask(turn())
    fault = fault_of(lambda: bot.ask(turn()))
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.detail == (
        "no reply within the 0.25 s move limit, nor 1.00 s later: "
        "write one line per reply and flush stdout after it"
    )


def test_a_slow_first_move_says_how_late_it_was_and_to_warm_up_before_hello() -> None:
    fake = ScriptedTransport()
    # the deadline passes, then the reply comes in the grace period
    fake.expect({"id": 1}, [BotTimeout("no reply before the deadline"), action(1)])
    fault = fault_of(lambda: session(fake, move=0.25).ask(turn()))
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.detail.startswith("the reply to turn 1 came after ")
    assert "over the 0.25 s move limit: warm up" in fault.detail
    assert "before the hello reply" in fault.detail and "flush" not in fault.detail


def test_a_slow_later_move_says_how_late_it_was() -> None:
    fake = ScriptedTransport()
    fake.expect({"id": 1}, [action(1)])
    fake.expect({"id": 2}, [BotTimeout("no reply before the deadline"), action(2)])
    bot = session(fake, move=0.25)
    bot.ask(turn())
    fault = fault_of(lambda: bot.ask(turn()))
    assert fault.detail.startswith("the reply to turn 2 came after ")
    assert "over the 0.25 s move limit" in fault.detail and "hello" not in fault.detail


def test_a_slow_hello_says_how_late_it_was_and_to_warm_up_within_the_start_up_limit() -> None:
    fake = ScriptedTransport()
    fake.expect(None, [BotTimeout("no reply before the deadline"), '{"type":"hello","name":"slow"}'])
    fault = fault_of(lambda: session(fake).handshake(dict(HELLO)))
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.detail.startswith("handshake: the hello reply came after ")
    assert "over the 5.00 s start-up limit: warm up before the hello reply" in fault.detail


def test_a_line_answering_a_notification_is_named_as_that() -> None:
    fake = ScriptedTransport()
    fake.expect({"type": "game_start"}, ['{"type":"ok"}'])
    fake.expect({"type": "round_start"}, ['{"type":"ok"}'])
    fake.expect({"type": "turn", "id": 1}, [action(1)])
    bot = session(fake)
    bot.notify({"type": "game_start", "game": 1})
    bot.notify({"type": "round_start", "game": 1})
    fault = fault_of(lambda: bot.ask(turn()))
    assert fault.kind is FaultKind.INVALID  # still a fault, as before
    assert fault.detail == (
        "a line that answers no turn arrived before the reply to turn 1, after game_start, "
        'round_start: \'{"type":"ok"}\'; notifications need no reply: write only the hello '
        "reply and one action per turn"
    )


def test_a_bad_reply_after_a_notification_is_still_named_a_bad_reply() -> None:
    fake = ScriptedTransport()
    fake.expect({"type": "round_start"}, [])
    fake.expect({"type": "turn", "id": 1}, ['{"type":"action","id":1,"action":"pass"}'])
    bot = session(fake)
    bot.notify({"type": "round_start", "game": 1})
    fault = fault_of(lambda: checked(bot.ask(turn())))
    assert "does not validate" in fault.detail and "answers no turn" not in fault.detail


class _Pipe(ScriptedTransport):
    """A scripted bot whose stdin pipe holds ``left`` unread bytes when it fails."""

    def __init__(self, left: int) -> None:
        super().__init__()
        self.left = left

    def unread(self) -> int:
        return self.left


def test_an_exit_after_game_end_is_named_as_that() -> None:
    fake = _Pipe(left=10_000)  # it read nothing after game_end
    fake.expect({"id": 1}, [action(1)])
    fake.expect({"type": "game_end"}, [])
    fake.expect({"type": "game_start"}, [])
    fake.expect({"type": "turn", "id": 2}, [BotCrashed("end of output (stdout closed)")])
    bot = session(fake)
    bot.ask(turn())
    bot.notify({"type": "game_end", "game": 1})
    bot.notify({"type": "game_start", "game": 2})
    fault = fault_of(lambda: bot.ask(turn()))
    assert fault.kind is FaultKind.CRASH
    assert fault.detail == (
        "end of output (stdout closed): the process exited after game_end; keep reading until shutdown"
    )


def test_a_crash_at_the_first_turn_of_the_next_game_is_not_blamed_on_game_end() -> None:
    fake = _Pipe(left=0)  # it read everything, the turn too, then crashed
    fake.expect({"type": "game_end"}, [])
    fake.expect({"type": "game_start"}, [])
    fake.expect({"type": "turn", "id": 1}, [BotCrashed("end of output (stdout closed)")])
    bot = session(fake)
    bot.notify({"type": "game_end", "game": 1})
    bot.notify({"type": "game_start", "game": 2})
    assert fault_of(lambda: bot.ask(turn())).detail == "end of output (stdout closed)"


def test_a_crash_mid_game_is_not_blamed_on_game_end() -> None:
    fake = _Pipe(left=10_000)
    fake.expect({"type": "round_end"}, [])
    fake.expect({"type": "turn", "id": 1}, [BotCrashed("end of output (stdout closed)")])
    bot = session(fake)
    bot.notify({"type": "round_end", "game": 1})
    assert fault_of(lambda: bot.ask(turn())).detail == "end of output (stdout closed)"
