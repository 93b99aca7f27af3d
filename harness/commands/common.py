"""What the commands share: one-line errors, and the rules and clock options."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sys
import typing
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import click

from harness.errors import HarnessError
from harness.games import DEFAULT_GAME, REGISTRY, BadOptions
from harness.limits import MAX_SECONDS, TRUST_BOTS_ENV
from harness.terminal import printable

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> None:
    # one line: a message may quote a bot or a file, whose control characters are shown, not run
    click.echo(f"error: {printable(message).replace(chr(10), chr(92) + 'n')}", err=True)
    sys.exit(2)


def friendly(func: F) -> F:
    """Turn HarnessError (and a few OS errors) into one line on stderr and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except HarnessError as err:
            fail(str(err))
        except BadOptions as err:
            fail(f"rules option {err}")
        except KeyboardInterrupt:
            fail("interrupted")
        except BrokenPipeError:  # `llama-harness replay FILE | head`: the reader left
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except OSError as err:
            fail(f"{err.filename or ''}: {err.strerror or err}".lstrip(": "))

    return wrapper  # type: ignore[return-value]


class FiniteFloat(click.FloatRange):
    """A float option that refuses ``nan`` and the infinities when the command line is parsed.

    ``click.FloatRange`` lets ``nan`` through (every comparison with it is false): a NaN
    clock would start a match and fail in it. Every float option of every command uses this.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


def known_game(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check a --game value against the registry when the command line is parsed."""
    if value is not None and value not in REGISTRY:
        raise click.BadParameter(f"{value!r} is not a game (known: {', '.join(sorted(REGISTRY))})")
    return value


# the commands' own options: a game's option of such a name gets no flag (only --rule)
COMMAND_OPTIONS = frozenset(
    [
        "alpha",
        "anchor",
        "at",
        "beta",
        "bot",
        "check",
        "cluster",
        "confidence",
        "dir",
        "dump",
        "force",
        "format",
        "game",
        "games",
        "gauntlet",
        "gzip",
        "html",
        "jobs",
        "move_time",
        "opponent",
        "out",
        "rule",
        "runtime",
        "runtimes",
        "sandbox",
        "seat",
        "seed",
        "sprt",
        "startup_time",
        "step",
        "table_size",
        "tls_ca_file",
        "tls_cert",
        "tls_key",
        "trust_bots",
        "until_decided",
        "verify",
        "duplicate",
        "compress",
    ]
)


def _rule_options() -> dict[str, Callable[[F], F]]:
    """One ``--flag`` per rules option of the registered games, from their options models.

    The flags are the games' own, not one merged set: a flag takes any value here, and
    the game chosen (``--game``, or the league file's) validates it with the rest of its
    options (:func:`check_rules`), so one game's choices never refuse another's. An int
    flag is an int where every game that has it says so.
    """
    found: dict[str, list[tuple[str, Any]]] = {}
    for name in sorted(REGISTRY):
        for key, info in REGISTRY[name].options_model.model_fields.items():
            if key not in COMMAND_OPTIONS:  # a flag the commands have: that option goes by --rule
                found.setdefault(key, []).append((name, info))
    out: dict[str, Callable[[F], F]] = {}
    for key, owners in found.items():
        kind: Any = click.INT if all(info.annotation is int for _, info in owners) else str
        first = owners[0][1]
        text = (first.description or key.replace("_", " ").capitalize()).rstrip(".")
        notes = []
        for game, info in owners:
            values = typing.get_args(info.annotation) if typing.get_origin(info.annotation) is Literal else ()
            default = info.get_default(call_default_factory=True)
            shown = f"default {default}" if default is not None and not isinstance(default, dict) else ""
            choices = f"one of {', '.join(map(str, values))}" if values else ""
            notes.append(
                f"{game}: " + "; ".join(part for part in (choices, shown) if part)
                if choices or shown
                else game
            )
        help_text = f"{text} [{'; '.join(notes)}]"
        out[key] = click.option(f"--{key.replace('_', '-')}", key, type=kind, default=None, help=help_text)
    return out


def _rule_value(text: str) -> object:
    """A ``--rule`` value: JSON when it reads as a number, true/false, an array or an object; else the text."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (int, float, bool, list, dict)) else text


def parse_rules(values: tuple[str, ...]) -> dict[str, object]:
    """``--rule KEY=VALUE`` values as a mapping; BadOptions naming one that is not KEY=VALUE."""
    rules: dict[str, object] = {}
    for item in values:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise BadOptions(f"--rule {item!r} is not KEY=VALUE (e.g. --rule end_score=30)")
        rules[key] = _rule_value(text)
    return rules


def check_rules(game_name: str, rules: dict[str, Any]) -> None:
    """Validate ``rules`` with ``game_name``'s options model; BadOptions naming the game and the key."""
    try:
        REGISTRY[game_name].parse_options(rules)
    except BadOptions as err:
        raise BadOptions(f"of {game_name}: {err}") from None


def rules_options(func: F) -> F:
    """The game, its rules options (from every game's options model) and the time limits."""
    decorators: list[Callable[[F], F]] = [
        click.option(
            "--game",
            default=None,
            callback=known_game,
            help=f"The game to play: {', '.join(sorted(REGISTRY))} [default: {DEFAULT_GAME}].",
        ),
    ]
    decorators += _rule_options().values()
    decorators.append(
        click.option(
            "--rule",
            "rule",
            multiple=True,
            metavar="KEY=VALUE",
            help="A rules option of the game played (repeatable), validated by that game; "
            "VALUE is JSON when it reads as a number, true/false, an array or object, else text.",
        )
    )
    decorators += [
        click.option(
            "--move-time",
            type=FiniteFloat(min=0.001, max=MAX_SECONDS),
            default=None,
            help="Seconds a bot has for each move (wall clock) [default: 1].",
        ),
        click.option(
            "--startup-time",
            type=FiniteFloat(min=0.001, max=MAX_SECONDS),
            default=None,
            help="Seconds a bot has to start and answer hello [default: 10].",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def runtime_option(func: F) -> F:
    """``--runtime PATH`` (repeatable): a folder every sandboxed bot also sees, read-only (param ``runtimes``)."""
    return click.option(
        "--runtime",
        "runtimes",
        multiple=True,
        metavar="PATH",
        help="A runtime folder (an interpreter, a JDK) to show every sandboxed bot, read-only; repeatable. "
        "See docs/sandbox.md.",
    )(func)


def collect_rules(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop the rules options that were given on the command line: the flags, then ``--rule``s.

    A key given both ways is a one-line error (which value would win is not obvious).
    """
    flags = {key: value for key in _rule_options() if (value := kwargs.pop(key, None)) is not None}
    given = parse_rules(kwargs.pop("rule", None) or ())
    for key in given:
        if key in flags:
            raise BadOptions(f"{key}: given both as --{key.replace('_', '-')} and as --rule")
    return {**flags, **given}


def _trust(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:  # in the environment: league workers resolve the sandbox too
        os.environ[TRUST_BOTS_ENV] = "1"
    return value


def trust_bots_option(func: F) -> F:
    """``--trust-bots``: let ``--sandbox none`` run bots as root where no PID namespace can be made."""
    return click.option(
        "--trust-bots",
        is_flag=True,
        expose_value=False,
        callback=_trust,
        help="With --sandbox none as root where no PID namespace can be made: run the bots anyway "
        "(they could outlive the match). See docs/sandbox.md.",
    )(func)
