"""The export's index: one JSON object per line of its ``index.jsonl`` member, named by ``type``.

The first line is the ``export`` record (what was exported: the league's config, bots,
revisions, timing); then one ``game`` record per game, in game-id order, naming the
member that holds its replay and the results the league recorded for it. The models
are the boundary (``extra="forbid"``, frozen); ``schemas/export-index.schema.json`` is
generated from them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

EXPORT_FORMAT = "llama-harness-export"
EXPORT_VERSION = 1
INDEX_NAME = "index.jsonl"  # the index member; the replays are under replays/
# a member name: the league's own relative replay path, never absolute, never up a folder
# (no part starts with a dot: ``report`` writes faulted games' replays under these paths)
MEMBER_PATTERN = r"^replays/([A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*\.jsonl$"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExportBot(_Record):
    name: str
    version: str
    digest: str = Field(description="The entrant's digest (its snapshot, and its settings if any)")


class ExportHeader(_Record):
    """The first line of the index: the export as a whole."""

    type: Literal["export"]
    format: Literal["llama-harness-export"]
    version: Literal[1]
    source: str = Field(description="The name of the league or match folder exported")
    game: str = Field(description="The game played (llama, llama-llama)")
    games: Annotated[int, Field(ge=0, description="Game records that follow")]
    bots: list[ExportBot]
    config: dict[str, Any] = Field(description="The league's config, as `ratings --format json` shows it")
    identity: dict[str, Any] = Field(default_factory=dict, description="What determines the results")
    revisions: list[dict[str, Any]] = Field(default_factory=list, description="How the league grew")
    decisions: dict[str, Any] | None = Field(default=None, description="A league run until decided: its decisions")
    timing: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="By bot: its move and start-up time histograms"
    )


class ExportFault(_Record):
    kind: str
    detail: str


class ExportSeat(_Record):
    seat: Annotated[int, Field(ge=0)]
    bot: str
    score: int
    place: Annotated[int, Field(ge=1)]
    forfeited: bool
    faults: list[ExportFault] = Field(default_factory=list)
    time_ms: Annotated[float, Field(ge=0, description="Thinking time the seat used (its actions' ms summed)")]
    moves: Annotated[int, Field(ge=0, description="Actions the bot chose (the referee's forced ones left out)")]
    stats: dict[str, float] = Field(default_factory=dict, description="The game's own statistics for this seat")


class ExportGame(_Record):
    """One game: where its replay is in the export and what the league recorded."""

    type: Literal["game"]
    game: Annotated[int, Field(ge=1, description="The game id in the league")]
    deal_group: str = Field(description="The deal group (games dealt the same cards share it)")
    replay: Annotated[str, Field(pattern=MEMBER_PATTERN, description="The member holding the replay")]
    rounds: Annotated[int, Field(ge=0)]
    moves: Annotated[int, Field(ge=0)]
    adjudicated: bool
    seats: list[ExportSeat] = Field(min_length=1, description="By seat")


IndexRecord = Annotated[ExportHeader | ExportGame, Field(discriminator="type")]
INDEX_ADAPTER: TypeAdapter[Any] = TypeAdapter(IndexRecord)

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "INDEX_ADAPTER",
    "INDEX_NAME",
    "MEMBER_PATTERN",
    "ExportBot",
    "ExportFault",
    "ExportGame",
    "ExportHeader",
    "ExportSeat",
    "IndexRecord",
]
