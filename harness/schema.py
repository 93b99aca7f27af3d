"""JSON Schemas of the bot protocol, the replay format and the bot manifest, from the models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from harness.bots.manifest import Manifest
from harness.errors import HarnessError
from harness.export.model import INDEX_ADAPTER
from harness.games import BUILT_IN, DEFAULT_GAME, REGISTRY


def schemas() -> dict[str, dict[str, Any]]:
    """File name → schema, for every schema the harness publishes: each shipped game's, and the manifest's.

    A game's files are ``<game>-protocol-to-bot``, ``<game>-protocol-from-bot`` and
    ``<game>-replay``; the default game keeps the names it was first published under.
    """

    def titled(adapter: TypeAdapter[Any], title: str, description: str) -> dict[str, Any]:
        schema = adapter.json_schema()
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": title,
            "description": description,
            **schema,
        }

    out: dict[str, dict[str, Any]] = {}
    for name in sorted(BUILT_IN):  # a game from LLAMA_HARNESS_GAMES publishes its own
        game = REGISTRY[name]
        prefix, of = ("", "") if name == DEFAULT_GAME else (f"{name}-", f" ({game.title})")
        out[f"{prefix}protocol-to-bot.schema.json"] = titled(
            TypeAdapter(game.wire.to_bot),
            f"llama-harness protocol v1: referee to bot{of}",
            "One JSON object per line on the bot's stdin.",
        )
        out[f"{prefix}protocol-from-bot.schema.json"] = titled(
            TypeAdapter(game.wire.from_bot),
            f"llama-harness protocol v1: bot to referee{of}",
            "One JSON object per line on the bot's stdout. Unknown extra fields are ignored.",
        )
        out[f"{prefix}replay.schema.json"] = titled(
            game.wire.records_adapter,
            f"llama-harness replay format v1{of}",
            "One record per line of a replay file (.jsonl or .jsonl.gz).",
        )
    out["bot-toml.schema.json"] = titled(TypeAdapter(Manifest), "bot.toml", "The manifest of a bot folder.")
    out["export-index.schema.json"] = titled(
        INDEX_ADAPTER,
        "llama-harness export index v1",
        "One record per line of an export's index.jsonl member: the export record, then a game record per game.",
    )
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write(folder: Path) -> list[Path]:
    """Write every schema file into ``folder``; raise HarnessError for a non-regular file in the way."""
    from harness.files import check_output, write_output

    for name in schemas():  # all checked before any is written
        check_output(folder / name)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = folder / name
        written.append(write_output(path, render(schema)))
    return written


def stale(folder: Path) -> list[str]:
    """Names of schema files that are missing or differ from the models."""
    out = []
    for name, schema in schemas().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render(schema):
            out.append(name)
    return out


def check(folder: Path) -> str | None:
    """One line saying how ``folder``'s schema files differ from the models; None when they match.

    Missing files are called missing, not stale. Raises HarnessError when ``folder`` is
    not a folder (outside a checkout, or a wrong ``--dir``), OSError when a file cannot be read.
    """
    if not folder.is_dir():
        what = "not a folder" if folder.exists() else "no such folder"
        raise HarnessError(
            f"{folder}: {what}; --check compares a checkout's schemas/ folder with the models: "
            "run it in the checkout or name the folder with --dir"
        )
    names = stale(folder)
    missing = [name for name in names if not (folder / name).is_file()]
    differ = [name for name in names if name not in missing]
    parts = []
    if missing:
        parts.append(f"missing schemas: {', '.join(missing)}")
    if differ:
        parts.append(f"stale schemas: {', '.join(differ)}")
    return f"{folder}: {'; '.join(parts)} (run: llama-harness schema)" if parts else None
