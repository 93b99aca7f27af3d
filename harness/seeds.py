"""Seeds derived from a league's or match's seed: stable across runs, machines and Pythons."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 48-bit seed from ``parts``: stable across runs, platforms and Python versions."""
    text = ":".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:6], "big")
