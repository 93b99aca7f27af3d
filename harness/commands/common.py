"""What the commands share: one-line errors, and the rules and clock options."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from harness.errors import HarnessError
from harness.games import BadOptions

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
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


def rules_options(func: F) -> F:
    """The rules options and time limits shared by ``match`` and ``league``."""
    decorators = [
        click.option(
            "--variant",
            type=click.Choice(["standard", "komary"]),
            default=None,
            help="Rules variant [default: standard].",
        ),
        click.option(
            "--next-starter",
            type=click.Choice(["ender", "last_play", "rotate"]),
            default=None,
            help="Who starts rounds after the first [default: ender].",
        ),
        click.option(
            "--end-score",
            type=click.IntRange(min=1),
            default=None,
            help="A game ends when a score reaches this [default: 40].",
        ),
        click.option(
            "--max-rounds",
            type=click.IntRange(min=1),
            default=None,
            help="Round cap; a game that reaches it is adjudicated [default: 50].",
        ),
        click.option(
            "--move-time",
            type=click.FloatRange(min=0.001),
            default=None,
            help="Seconds a bot has for each move (wall clock) [default: 1].",
        ),
        click.option(
            "--startup-time",
            type=click.FloatRange(min=0.001),
            default=None,
            help="Seconds a bot has to start and answer hello [default: 10].",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def collect_rules(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop the rules options that were given on the command line."""
    keys = ("variant", "next_starter", "end_score", "max_rounds")
    return {key: value for key in keys if (value := kwargs.pop(key, None)) is not None}
