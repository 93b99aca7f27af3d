"""Pieces shared by the HTML pages: package assets, safe embedding, the page shell.

Every page is one file that a browser opens from disk with no network: scripts,
styles and pictures are inline, and a Content-Security-Policy forbids any fetch.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

# The browser enforces "no network": nothing may be fetched, inline code may run.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def asset(name: str) -> str:
    """Return the text of a file shipped in ``harness/html``; raise OSError if missing."""
    return resources.files("harness.html").joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """Serialise ``data`` for a ``<script type="application/json">`` element.

    ``<``, ``>`` and ``&`` become JSON escapes so a bot name or fault detail holding
    ``</script>`` cannot end the element early; ``json.loads`` reads the text unchanged.
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def inline_script(code: str) -> str:
    # A script body must not contain "</script"; our assets never do, data goes via embed_json.
    return "<script>\n" + code.replace("</script", "<\\/script") + "\n</script>"


def shell(title: str, css: str, body: str) -> str:
    """Wrap ``body`` in a complete HTML document with ``css`` inline."""
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>\n{css}\n</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
