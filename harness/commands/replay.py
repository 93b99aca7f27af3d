"""``llama-harness replay`` and ``schema``: replay files and the published schemas."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.commands.common import friendly, runtime_option, trust_bots_option
from harness.errors import HarnessError
from harness.terminal import inline, printable

if TYPE_CHECKING:
    from harness.replay.records import Record

STEP_PROMPT = "[Enter] next step, q quit: "


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--seat", type=click.IntRange(min=0), default=None, help="Show only what this seat saw.")
@click.option(
    "--verify",
    is_flag=True,
    help="Re-simulate through the rules. FILES may be many files, folders and globs: "
    "one line per bad file, then a total; exit 1 if any is bad.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes for --verify of many files [default: the number of cores].",
)
@click.option("--step", is_flag=True, help="Pause after each step: Enter for the next, q to quit.")
@click.option(
    "--game",
    "game_id",
    type=click.IntRange(min=1),
    default=None,
    help="FILE is an export (llama-harness export): the game with this id [--verify: every game].",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a self-contained HTML viewer of the game to this file (with --verify: after it verifies).",
)
@click.option(
    "--at",
    "decision",
    type=click.IntRange(min=1),
    default=None,
    help="Rebuild what --seat received up to its N-th decision, for --bot and --dump.",
)
@click.option(
    "--bot",
    "bot_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="With --at: feed that input to the bot in this folder (a fresh process) and show its reply.",
)
@click.option(
    "--dump",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="With --at: write that input as JSON lines to this file ('-': stdout), for mybot < FILE.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["auto", "bwrap", "none"]),
    default="auto",
    show_default=True,
    help="With --bot: run the bot as a match does (auto: bubblewrap when installed).",
)
@runtime_option
@trust_bots_option
@friendly
def replay(
    files: tuple[str, ...],
    seat: int | None,
    verify: bool,
    jobs: int | None,
    step: bool,
    game_id: int | None,
    html_out: Path | None,
    decision: int | None,
    bot_dir: Path | None,
    dump: Path | None,
    sandbox: str,
    runtimes: tuple[str, ...],
) -> None:
    """Show a replay FILE step by step, check FILES (files, folders, globs) with --verify, or
    reproduce one decision offline with --at N --seat K --bot DIR. FILE may be an export
    (llama-harness export): pick its game with --game N."""
    from harness.export import is_export
    from harness.replay.batch import is_batch

    if len(files) == 1 and is_export(Path(files[0])):
        _from_export(Path(files[0]), game_id, seat, verify, step, html_out, decision, bot_dir, dump, sandbox, runtimes)
        return
    if game_id is not None:
        what = f"{files[0]} is not an export" if len(files) == 1 else f"give one export, not {len(files)} files"
        raise HarnessError(f"--game {game_id}: picks a game of an export; {what}")

    if decision is not None or bot_dir is not None or dump is not None:
        if decision is None or seat is None or len(files) != 1 or verify or step or html_out:
            raise HarnessError(
                "reproduce a decision with: replay FILE --at N --seat K [--bot DIR] [--dump FILE]"
            )
        _reproduce(Path(files[0]), seat, decision, bot_dir, dump, sandbox, runtimes)
        return

    if verify and is_batch(files):
        if html_out is not None:
            raise HarnessError("--html writes the viewer of one game: give --verify --html one replay file")
        _verify_many(files, jobs)
        return
    if len(files) != 1:
        raise HarnessError(f"give one replay FILE, not {len(files)} (several only with --verify)")
    file = Path(files[0])
    if verify:
        _verify_one(file)
        if html_out is None:
            return
    if html_out is not None:
        _html(file, html_out, seat)
        return
    _show(file, seat, step)


def _verify_many(files: tuple[str, ...], jobs: int | None) -> None:
    from harness.export import is_export, open_export
    from harness.export.check import verify_export
    from harness.replay.batch import expand, verify_many

    paths = expand(files)
    exports = [path for path in paths if is_export(path)]  # named one by one: each game counts
    paths = [path for path in paths if path not in exports]
    bad = total = 0
    for verdict in verify_many(paths, jobs):
        total += 1
        if verdict.problem is not None:
            bad += 1
            click.echo(inline(verdict.line()), err=True)
    for path in exports:
        with open_export(path) as export:
            for one in verify_export(export):
                total += 1
                if one.problem is not None:
                    bad += 1
                    click.echo(inline(one.line()), err=True)
    click.echo(f"{total} replays: {total - bad} ok, {bad} bad")
    if bad:
        sys.exit(1)


def _verify_one(file: Path) -> None:
    from harness.replay.io import read_replay
    from harness.replay.verify import verify as check

    records = read_replay(file)
    problem = check(records)
    if problem is not None:
        click.echo(inline(f"{file}: {problem}"), err=True)
        sys.exit(1)
    click.echo(f"{file}: ok ({len(records)} records)")


def _html(file: Path, html_out: Path, seat: int | None, data: bytes | None = None) -> None:
    """Write the viewer; ``data``: the replay's text (a game of an export, ``file`` naming it)."""
    from harness.files import check_output
    from harness.html.viewer import save_viewer
    from harness.replay.io import read_replay
    from harness.replay.verify import verify as check

    check_output(html_out)  # before reading: a FIFO or a device is refused, never replaced
    records = read_replay(file, data)
    problem = check(records)
    if problem is not None:  # the viewer replays the cards: it needs a sound file
        raise HarnessError(f"{file}: cannot show a replay that does not verify: {problem}")
    _check_seat(records, seat)
    click.echo(f"wrote {save_viewer(records, html_out, seat=seat, source=file.name)}")


def _show(file: Path, seat: int | None, step: bool, data: bytes | None = None) -> None:
    """Print the game; a damaged replay is shown up to the damage, then the one-line error.

    ``data``: the replay's text (a game of an export, ``file`` naming it).
    """
    from harness.replay.io import read_prefix
    from harness.replay.render import render
    from harness.replay.verify import verify as check

    records, damage = read_prefix(file, data)
    problem = check(records)
    if problem is not None and (damage is None or problem.index <= len(records)):
        # a disagreement inside what was read: show what comes before it
        records = records[: problem.index - 1]
        damage = HarnessError(f"{file}: {problem}")
    if not records and damage is not None:  # the header itself disagrees: nothing to show
        raise damage
    _check_seat(records, seat)
    blocks = list(render(records, seat))
    for number, block in enumerate(blocks, 1):
        click.echo(printable(block))  # names, versions and faults come from bots
        if step and number < len(blocks):
            click.echo(STEP_PROMPT, nl=False, err=True)
            answer = sys.stdin.readline()
            if not answer or answer.strip().lower() in ("q", "quit"):
                return
    if damage is not None:
        raise damage


def _reproduce(
    file: Path,
    seat: int,
    decision: int,
    bot_dir: Path | None,
    dump: Path | None,
    sandbox: str,
    runtimes: tuple[str, ...] = (),
    data: bytes | None = None,
    hide: Path | None = None,
) -> None:
    """Rebuild a seat's input up to a decision; write it, and/or feed it to a bot and compare.

    ``data``: the replay's text (a game of an export, ``file`` naming it).
    """
    from harness.replay.reproduce import feed, rebuild_file

    given = rebuild_file(file, seat, decision, data)
    if dump is not None and str(dump) == "-":
        sys.stdout.buffer.write(given.jsonl())
        sys.stdout.flush()
    elif dump is not None:
        from harness.files import write_output

        write_output(dump, given.jsonl())
        click.echo(
            f"wrote {dump}: {len(given.messages)} messages, the input of seat {seat} up to decision {decision}"
        )
    if bot_dir is None:
        if dump is None:
            raise HarnessError("--at: say what to do with the input: --bot DIR, --dump FILE or both")
        return
    from harness.replay.reproduce import summary, verdict
    from harness.sandbox import resolve_sandbox

    for line in summary(file, given):  # each one line: a bot's string in it cannot start another
        click.echo(inline(line))
    hidden = hide if hide is not None else file.resolve().parent
    answer = feed(bot_dir, given, wrapper=resolve_sandbox(sandbox, None, [os.path.abspath(p) for p in runtimes]), hide=[hidden])
    for line in verdict(given, answer):
        click.echo(inline(line))
    if answer.fault is not None:
        sys.exit(1)


def _from_export(
    file: Path,
    game_id: int | None,
    seat: int | None,
    verify: bool,
    step: bool,
    html_out: Path | None,
    decision: int | None,
    bot_dir: Path | None,
    dump: Path | None,
    sandbox: str,
    runtimes: tuple[str, ...],
) -> None:
    """``replay`` of an export: one game of it (``--game``), or ``--verify`` of every game."""
    from harness.export import open_export
    from harness.export.check import verify_export

    with open_export(file) as export:
        if verify and game_id is None:
            if html_out is not None or decision is not None or step:
                raise HarnessError(f"{file}: an export: --verify checks every game; pick one with --game N for more")
            bad = total = 0
            for verdict in verify_export(export):
                total += 1
                if verdict.problem is not None:
                    bad += 1
                    click.echo(inline(verdict.line()), err=True)
            click.echo(f"{file}: {total} replays: {total - bad} ok, {bad} bad")
            if bad:
                sys.exit(1)
            return
        if game_id is None:
            ids = f"{export.games[0].game}-{export.games[-1].game}" if export.games else "none"
            raise HarnessError(f"{file}: an export of {len(export.games)} games (ids {ids}): pick one with --game N")
        game = export.game(game_id)
        name, data = Path(export.name_of(game)), export.replay_text(game)
    if decision is not None or bot_dir is not None or dump is not None:
        if decision is None or seat is None or verify or step or html_out:
            raise HarnessError(
                "reproduce a decision with: replay FILE [--game N] --at N --seat K [--bot DIR] [--dump FILE]"
            )
        _reproduce(name, seat, decision, bot_dir, dump, sandbox, runtimes, data, hide=file.resolve().parent)
        return
    if verify:
        from harness.export.check import index_problem
        from harness.replay.io import read_replay
        from harness.replay.verify import verify as check

        records = read_replay(name, data)
        problem = check(records) or index_problem(game, records)
        if problem is not None:
            click.echo(inline(f"{name}: {problem}"), err=True)
            sys.exit(1)
        click.echo(f"{name}: ok ({len(records)} records)")
        if html_out is None:
            return
    if html_out is not None:
        _html(name, html_out, seat, data)
        return
    _show(name, seat, step, data)


def _check_seat(records: Sequence[Record], seat: int | None) -> None:
    players = len(getattr(records[0], "players", []))
    if seat is not None and seat >= players:
        raise HarnessError(f"--seat {seat}: the game has seats 0-{players - 1}")


@click.command()
@click.option("--dir", "folder", type=click.Path(path_type=Path), default=Path("schemas"), show_default=True)
@click.option("--check", is_flag=True, help="Exit 1 if the files differ from the models.")
@friendly
def schema(folder: Path, check: bool) -> None:
    """Write the JSON Schemas (protocol, replay, bot.toml) generated from the models."""
    from harness import schema as schemas

    if check:
        problem = schemas.check(folder)
        if problem is not None:
            click.echo(problem, err=True)
            sys.exit(1)
        click.echo(f"{folder}: schemas are up to date")
        return
    for path in schemas.write(folder):
        click.echo(f"wrote {path}")
