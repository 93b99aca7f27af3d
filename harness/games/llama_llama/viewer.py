"""The Llama Llama replay viewer: one self-contained HTML page that steps through a game.

The page embeds the replay records as JSON; ``viewer.js`` computes the table after every
record once (displays and goals, every hand, each pass, the scoring breakdown), then
shows any step, with all hands open or as one seat saw it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from harness.html.page import embed_json, inline_script, shell

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
    <option value="8">8/s</option><option value="16">16/s</option><option value="32">32/s</option></select></label>
  <label>round <select id="round-select" data-testid="round-select"></select></label>
  <label>view <select id="view" data-testid="view"></select></label>
  <input type="range" id="scrub" data-testid="scrub" min="0" value="0" aria-label="step">
  <span id="step" data-testid="step" class="step"></span>
</nav>
<main class="layout">
  <section class="table" aria-label="table">
    <div class="centre">
      <div id="round" data-testid="round" class="round"></div>
      <div id="event" data-testid="event" class="event"></div>
      <div id="displays" data-testid="displays" class="displays"></div>
    </div>
    <h2>Hands, in passing order (each passes to the next)</h2>
    <div id="hands" data-testid="hands" class="hands"></div>
    <table id="breakdown" data-testid="breakdown" class="breakdown"></table>
    <h2>Rounds</h2>
    <table id="results" data-testid="results" class="results"></table>
  </section>
  <aside class="log-panel" aria-label="log">
    <h2>Log</h2>
    <ol id="log" data-testid="log" class="log"></ol>
  </aside>
</main>
<footer class="help">&#x2190; / &#x2192; step &#xB7; space play/pause &#xB7; Home / End &#xB7;
PgUp / PgDn round &#xB7; click a log line to jump there &#xB7; {source}</footer>
<script type="application/json" id="replay-data">{data}</script>
{script}"""


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _plain(record: Any) -> dict[str, Any]:
    if isinstance(record, Mapping):
        return dict(record)
    dumped: dict[str, Any] = record.model_dump(mode="json", exclude_none=True)
    return dumped


def render_viewer(records: Sequence[Any], *, seat: int | None = None, source: str = "") -> str:
    """Return the viewer page for a replay, opening as ``seat`` saw it (None: all hands open).

    Raises ValueError if the first record is not a header or the game has no such seat.
    """
    rows = [_plain(r) for r in records]
    if not rows or rows[0].get("type") != "header":
        raise ValueError("a replay starts with its header record")
    header = rows[0]
    players = header["players"]
    if seat is not None and not 0 <= seat < len(players):
        raise ValueError(f"seat {seat!r}: the game has seats 0-{len(players) - 1}")
    options = header["options"]
    title = f"Llama Llama · game {header.get('match', 1)} · " + " vs ".join(p["name"] for p in players)
    meta = (
        f"seed {header['seed']} · card set {options['card_set']['name']} · end score {options['end_score']} · "
        f"max rounds {options['max_rounds']} · " + ", ".join(f"{p['name']} {p['version']}" for p in players)
    )
    body = _BODY.format(
        title=html.escape(title),
        meta=html.escape(meta),
        source=html.escape(source),
        data=embed_json({"format": 1, "seat": seat, "records": rows}),
        script=inline_script(_asset("viewer.js")),
    )
    return shell(title, _asset("viewer.css"), body)


__all__ = ["render_viewer"]
