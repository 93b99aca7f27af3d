"""League configuration: the TOML league file, command-line overrides, and the resolved config.

The league file is validated by a pydantic model at the boundary; everything inside the
league works with the frozen :class:`LeagueConfig`.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.bots.manifest import NAME_PATTERN, BotSpec, check_names, load_bot, with_settings
from harness.errors import HarnessError, one_line
from harness.games import DEFAULT_GAME, REGISTRY, BadOptions, get_game
from harness.limits import MAX_SECONDS, merge_limits

MAX_GAMES = 1_000_000_000  # a sanity bound only: the schedule is made lazily, memory stays flat
DEFAULT_TABLE_SIZE = 4
# Tuned so `llama-harness league sample_bots` takes about a minute on two cores
# (see bench/league.py and docs/league.md).
DEFAULT_GAMES = 1000
DEFAULT_MOVE_TIME = 1.0
DEFAULT_STARTUP_TIME = 10.0
SandboxMode = Literal["auto", "bwrap", "none"]
Kind = Literal["league", "match"]


ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # a variable every shell and runtime can read


class Entrant(BaseModel):
    """One entry of a league file's ``bots`` as a table: a bot folder entered with settings.

    ``bots = [{folder = "bots/h", name = "h-fast", args = ["--fast"]}]``, or the same as
    ``[[bots]]`` tables; a plain string is a folder entered as it is.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    folder: str = Field(min_length=1, description="The bot folder, relative to the league file")
    name: Annotated[str, Field(pattern=NAME_PATTERN)] | None = Field(
        default=None, description="The entrant's name [default: the bot.toml's, numbered #2, #3 for repeats]"
    )
    args: list[str] = Field(default_factory=list, description="Arguments added after the bot's command")
    env: dict[str, str] = Field(default_factory=dict, description="Environment variables over the bot.toml's env")

    @field_validator("args")
    @classmethod
    def _arguments(cls, value: list[str]) -> list[str]:
        for i, arg in enumerate(value):
            if "\0" in arg:
                raise ValueError(f"args[{i}]: {arg!r} holds a NUL character")
        return value

    @field_validator("env")
    @classmethod
    def _variables(cls, value: dict[str, str]) -> dict[str, str]:
        for key, text in value.items():
            if not ENV_NAME.match(key):
                raise ValueError(f"{key!r} is not a variable name (letters, digits and _, not starting with a digit)")
            if "\0" in text:
                raise ValueError(f"{key}: the value holds a NUL character")
        return value


class LeagueFile(BaseModel):
    """A league file (TOML). Paths are relative to the file's folder."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bots: list[str | Entrant] | str = Field(
        description="Bot folders (each a path, or a table entering it with a name, args and env), "
        "or one folder of bot folders"
    )
    game: str | None = Field(default=None, description="The game played [default: the registry's default]")
    table_size: int | None = Field(default=None, ge=2, description="Players a table (the game's bounds)")
    games: int | None = Field(
        default=None, ge=1, le=MAX_GAMES, description="Target number of games (rounded up)"
    )
    seed: int | None = Field(default=None, ge=0, description="Explicit seed: public, guessable deals [default: a secret]")
    duplicate: bool = True
    rules: dict[str, str | int] = Field(default_factory=dict, description="The game's rules options")
    move_time: float | None = Field(default=None, gt=0)
    startup_time: float | None = Field(default=None, gt=0)
    jobs: int | None = Field(default=None, ge=1)
    sandbox: SandboxMode | None = None
    runtimes: list[str] = Field(
        default_factory=list,
        description="Folders shown read-only to every sandboxed bot beside the system's (an interpreter, a JDK)",
    )
    limits: dict[str, int] = Field(default_factory=dict)


@dataclass(frozen=True)
class Overrides:
    """Command-line values; None means "not given" (the league file or a default decides)."""

    games: int | None = None
    table_size: int | None = None
    seed: int | None = None
    jobs: int | None = None
    duplicate: bool | None = None
    move_time: float | None = None
    startup_time: float | None = None
    sandbox: SandboxMode | None = None
    rules: Mapping[str, object] = field(default_factory=dict)
    game: str | None = None
    runtimes: tuple[str, ...] = ()  # --runtime: added to the league file's runtimes
    gauntlet: tuple[Path, ...] = ()  # new bots' folders: a gauntlet against BOTS as the field


@dataclass(frozen=True)
class LeagueConfig:
    """A fully resolved league: bots (sorted by name), schedule parameters, rules, limits."""

    bots: tuple[BotSpec, ...]
    table_size: int
    games: int
    seed: int | str | None  # None: the deals come from a secret drawn for this league (str: a match's kept secret)
    duplicate: bool
    rules: dict[str, object]
    move_time: float
    startup_time: float
    jobs: int
    sandbox: SandboxMode
    limits: dict[str, int]
    game: str = DEFAULT_GAME
    gauntlet: tuple[str, ...] = ()  # the new bots of a gauntlet (the rest are the field)
    kind: Kind = "league"  # a match: one table of every bot in the order given, seats rotating
    compress: bool = False  # replays as .jsonl.gz
    runtimes: tuple[str, ...] = ()  # runtime roots shown to sandboxed bots (resolved, checked)

    @property
    def names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    @property
    def field_names(self) -> list[str]:
        """A gauntlet's fixed field (every bot for a league)."""
        return [name for name in self.names if name not in self.gauntlet]

    def identity(self) -> dict[str, Any]:
        """What determines the results: a changed identity under a league folder is refused.

        ``jobs`` and ``sandbox`` are left out: they change how fast, not what, is played.
        """
        return {
            "kind": self.kind,
            "game": self.game,
            "bots": self.names,
            "table_size": self.table_size,
            "games": self.games,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "rules": get_game(self.game).parse_options(self.rules).to_dict(),
            "move_time": self.move_time,
            "startup_time": self.startup_time,
            "limits": dict(sorted(self.limits.items())),
            **({"gauntlet": list(self.gauntlet)} if self.gauntlet else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        """The config as JSON-ready data (the identity plus the run settings)."""
        return {
            **self.identity(),
            "jobs": self.jobs,
            "sandbox": self.sandbox,
            "runtimes": list(self.runtimes),
            "compress": self.compress,
            "folders": {bot.name: str(bot.origin) for bot in self.bots},
            **(
                {"settings": {b.name: b.settings.to_dict() for b in self.bots if b.settings is not None}}
                if any(b.settings is not None for b in self.bots)
                else {}
            ),
        }


def read_league_file(path: Path) -> tuple[LeagueFile, Path]:
    """Parse a league file; raise HarnessError ``<file>: <field>: <problem>``."""
    from harness.files import read_capped

    try:  # a regular file only, up to 1 MiB: a FIFO would block, a device never end
        raw = tomllib.loads(read_capped(path, 1 << 20, "a league file").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise HarnessError(f"{path}: not valid TOML: {err}") from None
    _check_entries(path, raw.get("bots"))
    try:
        return LeagueFile.model_validate(raw), path.parent
    except ValidationError as err:
        raise HarnessError(f"{path}: {one_line(err)}") from None


def _check_entries(path: Path, bots: object) -> None:
    """Refuse a bad entry of a ``bots`` list in one line naming it: ``bots[2].env: ...``.

    (The model's own message for a list of strings or tables names both kinds at once.)
    """
    if not isinstance(bots, list):
        return
    for i, entry in enumerate(bots):
        if isinstance(entry, str):
            continue
        if not isinstance(entry, dict):
            raise HarnessError(f"{path}: bots[{i}]: {entry!r} is neither a bot folder (a string) nor a table")
        try:
            Entrant.model_validate(entry)
        except ValidationError as err:
            item = err.errors()[0]
            where = ".".join(str(part) for part in item["loc"])
            message = str(item["msg"]).removeprefix("Value error, ")
            raise HarnessError(f"{path}: bots[{i}]{'.' + where if where else ''}: {message}") from None


def bot_folders_in(folder: Path) -> list[Path]:
    """Every direct subfolder of ``folder`` holding a bot.toml, sorted; raise if none."""
    if not folder.is_dir():
        raise HarnessError(f"{folder}: not a folder of bot folders or a league file")
    found = sorted(child for child in folder.iterdir() if (child / "bot.toml").is_file())
    if not found:
        raise HarnessError(f"{folder}: no bot folders (subfolders with a bot.toml) inside")
    return found


def entrants(specs: Sequence[BotSpec], named: Sequence[bool] = ()) -> list[BotSpec]:
    """Name each entry of one bot folder distinctly and stably: ``heuristic``, ``heuristic#2``, ...

    The n-th entry of a folder (in the order given) is ``name#n``: the same command names
    them the same way every time. Two different folders with one name are refused.
    ``named[i]``: entry i was given its name by the league file; it keeps it.
    """
    plain = [spec for i, spec in enumerate(specs) if not (i < len(named) and named[i])]
    check_names(list({spec.folder: spec for spec in plain}.values()))
    seen: dict[str, int] = {}
    out = []
    for i, spec in enumerate(specs):
        if i < len(named) and named[i]:
            out.append(spec)
            continue
        seen[spec.name] = count = seen.get(spec.name, 0) + 1
        out.append(spec if count == 1 else replace(spec, name=f"{spec.name}#{count}"))
    return out


def _entered(source: Path, base: Path, entries: Sequence[str | Entrant]) -> tuple[list[BotSpec], list[bool]]:
    """The bots a league file lists, each with its settings; whether each was named there.

    Raises HarnessError naming the league file, the entry and the field: a bad folder,
    a command, build and env over what a bot may start with.
    """
    specs, named = [], []
    for i, entry in enumerate(entries):
        item = entry if isinstance(entry, Entrant) else Entrant(folder=entry)
        try:
            spec = load_bot(base / item.folder)
        except HarnessError as err:  # the bot's own words, after the entry that names it
            raise HarnessError(f"{source}: bots[{i}]: {err}") from None
        who = f"{source}: bots[{i}] ({item.name or spec.name!r})"
        specs.append(with_settings(spec, item.name, item.args, item.env, who))
        named.append(item.name is not None)
    return specs, named


def _unique(source: Path, specs: Sequence[BotSpec], named: Sequence[bool], listed: int) -> None:
    """Refuse two entrants of one name, naming the league file and both entries.

    The first ``listed`` specs are the file's ``bots``, the rest ``--gauntlet``'s.
    """

    def label(i: int) -> str:
        return f"bots[{i}]" if i < listed else "--gauntlet"

    first: dict[str, int] = {}
    for i, spec in enumerate(specs):
        if spec.name in first:
            j = first[spec.name]
            mine = i if named[i] or not named[j] else j
            other = j if mine == i else i
            raise HarnessError(
                f"{source}: {label(mine)}.name: {spec.name!r} is already the name of {label(other)} "
                f"({specs[other].origin}): give each entrant its own name"
            )
        first[spec.name] = i


def default_jobs() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def resolve(source: Path, overrides: Overrides) -> LeagueConfig:
    """Build the league config from BOTS (a folder of bot folders or a league file) and flags.

    Raises HarnessError naming the file and field for a bad league file, a bad bot
    folder, a bad rules option or an impossible table size.
    """
    file: LeagueFile | None = None
    listed = False  # bots named one by one must play the game; a folder's are filtered
    named: list[bool] = []
    if source.is_file():
        file, base = read_league_file(source)
        if isinstance(file.bots, str):
            specs = [load_bot(folder) for folder in bot_folders_in(base / file.bots)]
        else:
            specs, named = _entered(source, base, file.bots)
            listed = True
    else:
        specs = [load_bot(folder) for folder in bot_folders_in(source)]
    where = f"{source}: " if file is not None else ""
    name = overrides.game or (file.game if file else None) or DEFAULT_GAME
    if name not in REGISTRY:
        field_name = "game" if overrides.game is None else "--game"
        raise HarnessError(f"{where}{field_name}: unknown game {name!r} (known: {', '.join(sorted(REGISTRY))})")
    game = get_game(name)
    for spec in specs:
        if listed and game.name not in spec.games:
            raise HarnessError(
                f"{where}bots: {spec.name!r} does not play {game.name} (its bot.toml says games = {list(spec.games)})"
            )
    named = [flag for spec, flag in zip(specs, named or [False] * len(specs), strict=True) if game.name in spec.games]
    specs = [spec for spec in specs if game.name in spec.games]
    new = [load_bot(folder) for folder in overrides.gauntlet]
    for spec in new:
        if game.name not in spec.games:
            raise HarnessError(f"--gauntlet: {spec.name!r} does not play {game.name} (its bot.toml says games = {list(spec.games)})")
    everyone = entrants([*specs, *new], named)
    _unique(source, everyone, [*named, *[False] * len(new)], len(specs))
    gauntlet = tuple(bot.name for bot in everyone[len(specs) :])
    bots = sorted(everyone, key=lambda bot: bot.name)
    if len(bots) < game.min_players:
        raise HarnessError(f"{where}bots: a league needs at least {game.min_players} bots that play {game.name}, got {len(bots)}")

    def pick(flag: Any, from_file: Any, default: Any) -> Any:
        if flag is not None:
            return flag
        return from_file if from_file is not None else default

    seats = len(bots) - len(gauntlet) + (1 if gauntlet else 0)  # a gauntlet's table: one new bot
    size = pick(overrides.table_size, file and file.table_size, min(DEFAULT_TABLE_SIZE, seats, game.max_players))
    if not game.min_players <= size <= game.max_players:
        raise HarnessError(
            f"{where}table_size: {size!r} is outside what {game.title} seats "
            f"({game.min_players}-{game.max_players} players)"
        )
    if size > seats:
        what = f"one new bot and {seats - 1} field bots" if gauntlet else f"{len(bots)} bots"
        raise HarnessError(
            f"{where}table_size: {size!r} must be {game.min_players}-{min(game.max_players, seats)} for {what}"
        )
    rules: dict[str, object] = dict(file.rules) if file else {}
    rules.update(overrides.rules)
    try:
        game.parse_options(rules)
    except BadOptions as err:
        raise HarnessError(f"{where}rules: {err}") from None
    move = float(pick(overrides.move_time, file and file.move_time, DEFAULT_MOVE_TIME))
    startup = float(pick(overrides.startup_time, file and file.startup_time, DEFAULT_STARTUP_TIME))
    for name, value in (("move_time", move), ("startup_time", startup)):
        if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
            raise HarnessError(
                f"{where}{name}: {value!r} is not a positive number of seconds up to {MAX_SECONDS:g} (a day)"
            )
    limits = dict(file.limits) if file else {}
    for bot in bots:  # a bad [limits] table is bad input: say so now, not in a worker
        merge_limits(limits, bot.limits, bot.name)
    from harness.sandbox import check_runtimes  # here: the sandbox imports the match layer

    runtimes = check_runtimes([str(base / entry) for entry in file.runtimes], f"{where}runtimes") if file else ()
    runtimes += check_runtimes([os.path.abspath(entry) for entry in overrides.runtimes], "--runtime")
    duplicate = bool(pick(overrides.duplicate, file and file.duplicate, True))
    if gauntlet and not duplicate:
        raise HarnessError("--gauntlet needs duplicate deals (no --no-duplicate)")
    return LeagueConfig(
        bots=tuple(bots),
        table_size=int(size),
        games=int(pick(overrides.games, file and file.games, DEFAULT_GAMES)),
        seed=pick(overrides.seed, file and file.seed, None),
        duplicate=duplicate,
        rules=rules,
        move_time=move,
        startup_time=startup,
        jobs=int(pick(overrides.jobs, file and file.jobs, default_jobs())),
        sandbox=pick(overrides.sandbox, file and file.sandbox, "auto"),
        limits=limits,
        game=game.name,
        gauntlet=gauntlet,
        runtimes=tuple(dict.fromkeys(runtimes)),
    )
