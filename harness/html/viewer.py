"""The replay viewer: one self-contained HTML page that steps through a game.

The page embeds the replay records as JSON; ``viewer.js`` computes the state after
every record once, then shows any step in constant time.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.html.page import asset, embed_json, inline_script, shell
from harness.replay.io import read_replay
from harness.replay.records import Header, Record

# A small llama drawn once and reused by every Llama card (<use href="#llama">).
LLAMA_SYMBOL = (
    '<svg class="defs" width="0" height="0" aria-hidden="true"><defs>'
    '<symbol id="llama" viewBox="0 0 32 32">'
    '<ellipse cx="19" cy="18.5" rx="9" ry="5.5"/>'
    '<path d="M7 20V8.5h5.2V17z"/>'
    '<ellipse cx="9" cy="7.8" rx="4" ry="3"/>'
    '<ellipse cx="5.2" cy="9" rx="3.2" ry="2"/>'
    '<path d="M8 5.6 8.8 1.6 10.4 5.2zM10.6 5.4 12.3 2.2 12.8 6z"/>'
    '<path d="M11 22h2.2v8H11zM14.6 22h2.2v8h-2.2zM21.2 22h2.2v8h-2.2zM24.8 22H27v8h-2.2z"/>'
    '<ellipse cx="28.2" cy="16" rx="1.6" ry="2.6"/>'
    '<circle cx="8.6" cy="7.2" r=".9" fill="#fff"/>'
    "</symbol></defs></svg>"
)

_BODY = """\
{symbol}
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
  <section class="table" aria-label="table">
    <div class="centre">
      <div class="pile"><div class="label">discard</div><div id="discard" data-testid="discard"></div></div>
      <div class="pile"><div class="label">stock</div>
        <div class="card back big"><span id="stock-count" data-testid="stock-count"></span></div></div>
      <div class="status">
        <div id="round" data-testid="round" class="round"></div>
        <div id="event" data-testid="event" class="event"></div>
        <div id="stock-cards" data-testid="stock-cards" class="stock-cards"></div>
      </div>
    </div>
    <div id="seats" class="seats"></div>
    <h2>Rounds</h2>
    <table id="results" data-testid="results" class="results"><thead></thead><tbody></tbody></table>
  </section>
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
    if not isinstance(header, Header):
        raise ValueError("a replay starts with its header record")
    if seat is not None and not 0 <= seat < len(header.players):
        raise ValueError(f"seat {seat!r}: the game has seats 0-{len(header.players) - 1}")
    names = ", ".join(f"{p.name} {p.version}" for p in header.players)
    title = f"L.L.A.M.A. · game {header.match} · " + " vs ".join(p.name for p in header.players)
    opts = header.options
    meta = (
        f"{header.variant} · seed {header.seed} · next starter {opts.next_starter} · "
        f"end score {opts.end_score} · max rounds {opts.max_rounds} · {names}"
    )
    body = _BODY.format(
        symbol=LLAMA_SYMBOL,
        title=html.escape(title),
        meta=html.escape(meta),
        source=html.escape(source),
        data=embed_json(viewer_payload(records, seat)),
        script=inline_script(asset("viewer.js")),
    )
    return shell(title, asset("viewer.css"), body)


def write_viewer(replay: Path, out: Path, seat: int | None = None) -> Path:
    """Write the viewer page for the replay file ``replay`` to ``out``.

    Raises HarnessError if the replay cannot be read or has no such seat, OSError if
    ``out`` cannot be written.
    """
    return save_viewer(read_replay(replay), out, seat=seat, source=replay.name)


def save_viewer(records: Sequence[Record], out: Path, *, seat: int | None = None, source: str = "") -> Path:
    """Write the viewer page for ``records`` to ``out`` (atomically, via ``out.part``).

    Raises HarnessError if the records have no header or no such seat, OSError if
    ``out`` cannot be written.
    """
    try:
        page = render_viewer(records, seat=seat, source=source)
    except ValueError as err:
        raise HarnessError(f"{source or 'replay'}: {err}") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    part.write_text(page, encoding="utf-8")
    os.replace(part, out)
    return out
