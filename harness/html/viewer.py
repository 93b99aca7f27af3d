"""The replay viewer: one self-contained HTML page that steps through a game.

The page embeds the replay records as JSON, the game's renderer (``Game.viewer_js``:
it computes the table after every record once, then draws any step in constant time)
and the shell ``viewer.js`` (controls, log, views, address).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.games import REGISTRY
from harness.html.page import asset, embed_json, inline_script, shell
from harness.replay.io import read_replay
from harness.replay.records import Record
from harness.terminal import inline

_BODY = """\
<header class="top">
  <h1>{title}</h1>
  <p class="meta" data-testid="meta">{meta}</p>
</header>
<nav class="controls" aria-label="replay controls">
  <button type="button" id="first" data-testid="first" title="first step (Home)">|&#x25C0;</button>
  <button type="button" id="prev" data-testid="prev" title="step back (&#x2190;)">&#x25C0;</button>
  <button type="button" id="play" data-testid="play" title="play / pause (space)">&#x25B6; play</button>
  <button type="button" id="next" data-testid="next" title="step forward (&#x2192;)">&#x25B6;</button>
  <button type="button" id="last" data-testid="last" title="last step (End)">&#x25B6;|</button>
  <label>speed <select id="speed" data-testid="speed">
    <option value="1">1/s</option><option value="2">2/s</option><option value="4" selected>4/s</option>
    <option value="8">8/s</option><option value="16">16/s</option><option value="32">32/s</option>
    <option value="100">100/s</option></select></label>
  <label>round <select id="round-select" data-testid="round-select"></select></label>
  <label>view <select id="view" data-testid="view"></select></label>
  <input type="range" id="scrub" data-testid="scrub" min="1" value="1" aria-label="step">
  <span id="step" data-testid="step" class="step"></span>
</nav>
<main class="layout">
  <section class="table" id="table" aria-label="table"></section>
  <aside class="log-panel" aria-label="action log">
    <h2>Log</h2>
    <ol id="log" data-testid="log" class="log"></ol>
  </aside>
</main>
<footer class="help">&#x2190; / &#x2192; step &#xB7; space play/pause &#xB7; Home / End &#xB7;
PgUp / PgDn round &#xB7; click a log line to jump there &#xB7; {source}</footer>
<script type="application/json" id="replay-data">{data}</script>
{script}"""


def viewer_payload(records: Sequence[Record], seat: int | None = None) -> dict[str, Any]:
    """Return the JSON the page embeds: the records as a replay file holds them, and the first view."""
    return {"format": 1, "seat": seat, "records": [record.model_dump(mode="json") for record in records]}


def render_viewer(records: Sequence[Record], *, seat: int | None = None, source: str = "") -> str:
    """Return the viewer page for a replay, opening as ``seat`` saw it (None: all hands open).

    Raises ValueError if the first record is not a header or the game has no such seat.
    """
    header = records[0] if records else None
    if header is None or header.type != "header" or header.game not in REGISTRY:
        raise ValueError("a replay starts with its header record")
    game = REGISTRY[header.game]
    if seat is not None and not 0 <= seat < len(header.players):
        raise ValueError(f"seat {seat!r}: the game has seats 0-{len(header.players) - 1}")
    names = ", ".join(f"{inline(p.name)} {inline(p.version)}" for p in header.players)  # bots' strings
    title = f"{game.title} · game {header.match} · " + " vs ".join(p.name for p in header.players)
    rules = " · ".join(f"{key.replace('_', ' ')} {_short(value)}" for key, value in header.options.model_dump().items())
    meta = f"seed {header.seed} · {rules} · {names}"
    body = _BODY.format(
        title=html.escape(title),
        meta=html.escape(meta),
        source=html.escape(source),
        data=embed_json(viewer_payload(records, seat)),
        # one script: the game's renderer, then the shell that drives it
        script=inline_script(game.viewer_js.read_text(encoding="utf-8") + "\n" + asset("viewer.js")),
    )
    return shell(title, asset("viewer.css"), body)


def _short(value: object) -> str:
    """An option's value for the page's heading (a nested one, such as a card set, by its name)."""
    if isinstance(value, dict):
        return str(value.get("name", "(inline)"))
    return str(value)


def write_viewer(replay: Path, out: Path, seat: int | None = None) -> Path:
    """Write the viewer page for the replay file ``replay`` to ``out``.

    Raises HarnessError if the replay cannot be read or has no such seat, OSError if
    ``out`` cannot be written.
    """
    return save_viewer(read_replay(replay), out, seat=seat, source=replay.name)


def save_viewer(records: Sequence[Record], out: Path, *, seat: int | None = None, source: str = "") -> Path:
    """Write the viewer page for ``records`` to ``out`` (atomically, via ``out.part``).

    Raises HarnessError if the records have no header or no such seat or ``out`` is a
    FIFO or a device (refused, never replaced), OSError if ``out`` cannot be written.
    """
    try:
        page = render_viewer(records, seat=seat, source=source)
    except ValueError as err:
        raise HarnessError(f"{source or 'replay'}: {err}") from None
    from harness.files import write_output

    out.parent.mkdir(parents=True, exist_ok=True)
    return write_output(out, page)
