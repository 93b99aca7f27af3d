"""Bot folders and their ``bot.toml`` manifests."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.bots.argsize import check_arg_size
from harness.bots.snapshot import digest_of, scan
from harness.errors import HarnessError, one_line
from harness.files import open_regular as open_regular  # re-exported: they lived here first
from harness.files import read_regular as read_regular
from harness.limits import check_limits

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_NAME = re.compile(NAME_PATTERN)


class Manifest(BaseModel):
    """The ``bot.toml`` file of a bot folder."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(pattern=NAME_PATTERN, description="Bot name: letters, digits, . _ -")]
    version: str = "0"
    command: list[str] | str = Field(description="Argv (list) or a shell-style string, run in the bot folder")
    build: list[str] | str | None = Field(default=None, description="Run once before first use")
    env: dict[str, str] = Field(default_factory=dict)
    limits: dict[str, int] = Field(default_factory=dict, description="Resource limits for this bot")
    games: list[str] = Field(
        default_factory=lambda: ["llama"],
        min_length=1,
        description='The games the bot plays, by name ("llama", "llama-llama"); default ["llama"]',
    )

    @field_validator("command", "build")
    @classmethod
    def _an_argv(cls, value: list[str] | str | None) -> list[str] | str | None:
        if value is None:
            return value
        argv = _argv(value)  # raises ValueError for an unclosed quote
        if not argv or not argv[0]:
            raise ValueError("must not be empty")
        if any("\0" in arg for arg in argv):
            raise ValueError("must not contain a NUL character")
        return value

    @field_validator("env")
    @classmethod
    def _environment(cls, value: dict[str, str]) -> dict[str, str]:
        for key, text in value.items():
            if not key or "=" in key or "\0" in key or "\0" in text:
                raise ValueError(f"{key!r}: a variable name must be non-empty, without '=' or NUL")
        return value


def _argv(value: list[str] | str) -> list[str]:
    if isinstance(value, list):
        return list(value)
    try:
        return shlex.split(value)
    except ValueError as err:  # "No closing quotation"
        raise ValueError(f"{value!r}: {err}") from None


@dataclass(frozen=True)
class Settings:
    """What a league file adds to a bot as one of its entrants: arguments after its command, variables."""

    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # sorted by name

    def to_dict(self) -> dict[str, object]:
        return {"args": list(self.args), "env": dict(self.env)}


@dataclass(frozen=True)
class BotSpec:
    """A loaded bot: where it lives and how to run it."""

    name: str
    version: str
    folder: Path
    command: tuple[str, ...]
    build: tuple[str, ...] | None = None
    env: dict[str, str] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)
    games: tuple[str, ...] = ("llama",)
    # once sealed (harness.bots.build.seal_bot): ``folder`` is the read-only snapshot,
    # ``source`` the organiser's folder it was made from, ``snapshot`` its digest
    source: Path | None = None
    snapshot: str | None = None
    # an entrant with settings (a league file's ``args``/``env``, already in command and env)
    settings: Settings | None = None

    @property
    def origin(self) -> Path:
        """The organiser's folder (for messages and the league's records)."""
        return self.source or self.folder

    def digest(self) -> str:
        """The entrant's digest: its snapshot's (sealed, or what a snapshot of the folder would be now),
        hashed with its settings when it has any, so a changed setting is a changed entrant.

        Raises HarnessError for a folder no snapshot can be made of.
        """
        snapshot = self.snapshot or folder_digest(self.folder, f"bot {self.name!r}")
        if self.settings is None:
            return snapshot
        settings = json.dumps(self.settings.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(f"{snapshot}\0{settings}".encode()).hexdigest()


def with_settings(spec: BotSpec, name: str | None, args: Sequence[str], env: Mapping[str, str], where: str) -> BotSpec:
    """``spec`` entered as ``name`` with ``args`` after its command and ``env`` over its own.

    No name, args or env: ``spec`` as it is. Raises HarnessError naming ``where`` when
    the command, build and environment together are over what a bot may start with.
    """
    if not args and not env:
        return spec if name is None else replace(spec, name=name)
    command = (*spec.command, *args)
    merged = {**spec.env, **env}
    check_arg_size(where, command, spec.build, merged)
    return replace(
        spec,
        name=name or spec.name,
        command=command,
        env=merged,
        settings=Settings(tuple(args), tuple(sorted(env.items()))),
    )


MANIFEST_CAP = 1 << 20  # bytes: a bot.toml is a few lines


def folder_digest(folder: Path, who: str | None = None) -> str:
    """The snapshot digest of ``folder`` (see harness.bots.snapshot): every entry, nothing followed.

    Raises HarnessError, one line starting with ``who``, for a folder no snapshot can
    be made of (a FIFO, a device, a link out of it, over a cap).
    """
    return digest_of(scan(Path(folder), who or str(folder)))


def load_bot(folder: str | Path) -> BotSpec:
    """Read ``folder/bot.toml``; raise HarnessError with one line naming the problem."""
    folder = Path(folder)
    manifest_path = folder / "bot.toml"
    if not folder.exists():
        raise HarnessError(f"{folder}: bot folder does not exist")
    if not folder.is_dir():
        raise HarnessError(f"{folder}: not a folder (a bot is a folder with a bot.toml)")
    if not manifest_path.is_file():
        raise HarnessError(f"{manifest_path}: no bot.toml in the bot folder")
    try:
        data = read_regular(manifest_path, MANIFEST_CAP + 1)
    except OSError as err:
        raise HarnessError(f"{manifest_path}: cannot read it: {err.strerror or err}") from None
    if len(data) > MANIFEST_CAP:
        raise HarnessError(f"{manifest_path}: over {MANIFEST_CAP >> 20} MiB: not a bot.toml")
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise HarnessError(f"{manifest_path}: not valid TOML: {err}") from None
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as err:
        raise HarnessError(f"{manifest_path}: {one_line(err)}") from None
    # refused now, not as a start-up crash in every game: a value no wrapper can apply
    check_limits(manifest.limits, f"bot {manifest.name!r}: {manifest_path}: [limits]")
    from harness.games import REGISTRY  # here: the games import the protocol, not the bots

    for game in manifest.games:
        if game not in REGISTRY:
            known = ", ".join(sorted(REGISTRY))
            raise HarnessError(f"{manifest_path}: games: unknown game {game!r} (known: {known})")
    command = _argv(manifest.command)
    build = _argv(manifest.build) if manifest.build is not None else None
    check_arg_size(f"bot {manifest.name!r}: {manifest_path}", command, build, manifest.env)
    folder = folder.resolve()
    if build is None:
        check_command(manifest_path, folder, command[0])
    return BotSpec(
        name=manifest.name,
        version=manifest.version,
        folder=folder,
        command=tuple(command),
        build=tuple(build) if build else None,
        env=dict(manifest.env),
        limits=dict(manifest.limits),
        games=tuple(manifest.games),
    )


def check_command(manifest_path: Path, folder: Path, program: str) -> None:
    if os.sep in program:
        target = folder / program
        if not (target.is_file() and os.access(target, os.X_OK)):
            raise HarnessError(f"{manifest_path}: command: {program!r} is not an executable file")
    elif shutil.which(program) is None:
        raise HarnessError(f"{manifest_path}: command: {program!r} not found on PATH")


def resolve_program(folder: Path, program: str) -> str:
    """Return an absolute path for argv[0] (bots get a minimal environment)."""
    if os.sep in program:
        return os.path.normpath(folder / program)  # not resolve(): keep a venv symlink
    return shutil.which(program) or program


def check_names(bots: list[BotSpec]) -> None:
    """Raise HarnessError when two bots share a name."""
    seen: dict[str, Path] = {}
    for bot in bots:
        if bot.name in seen:
            raise HarnessError(f"two bots are named {bot.name!r}: {seen[bot.name]} and {bot.folder}")
        seen[bot.name] = bot.folder
