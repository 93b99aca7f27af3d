"""The ``llama-harness`` command: a click group over thin commands in harness/commands.

Every error a user can cause reaches them as one line and a non-zero exit code
(``harness.commands.common.friendly``).
"""

from __future__ import annotations

import click

from harness.commands.checkbot import check_bot
from harness.commands.export import export
from harness.commands.league import league, ratings
from harness.commands.match import match
from harness.commands.replay import replay, schema
from harness.commands.report import report


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="llama-harness")
def main() -> None:
    """Referee, replays, leagues and ratings for L.L.A.M.A. bots."""


for command in (match, league, ratings, replay, report, export, check_bot, schema):
    main.add_command(command)
