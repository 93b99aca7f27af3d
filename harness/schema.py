"""JSON Schemas of the bot protocol, the replay format and the bot manifest, from the models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from harness.bots.manifest import Manifest
from harness.protocol.messages import FromBot, ToBot
from harness.replay.records import Record


def schemas() -> dict[str, dict[str, Any]]:
    """File name → schema, for every schema the harness publishes."""

    def titled(adapter: TypeAdapter[Any], title: str, description: str) -> dict[str, Any]:
        schema = adapter.json_schema()
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": title,
            "description": description,
            **schema,
        }

    return {
        "protocol-to-bot.schema.json": titled(
            TypeAdapter(ToBot),
            "llama-harness protocol v1: referee to bot",
            "One JSON object per line on the bot's stdin.",
        ),
        "protocol-from-bot.schema.json": titled(
            TypeAdapter(FromBot),
            "llama-harness protocol v1: bot to referee",
            "One JSON object per line on the bot's stdout. Unknown extra fields are ignored.",
        ),
        "replay.schema.json": titled(
            TypeAdapter(Record),
            "llama-harness replay format v1",
            "One record per line of a replay file (.jsonl or .jsonl.gz).",
        ),
        "bot-toml.schema.json": titled(TypeAdapter(Manifest), "bot.toml", "The manifest of a bot folder."),
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = folder / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def stale(folder: Path) -> list[str]:
    """Names of schema files that are missing or differ from the models."""
    out = []
    for name, schema in schemas().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render(schema):
            out.append(name)
    return out
