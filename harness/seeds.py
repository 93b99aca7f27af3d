"""Seeds: every deal and every bot's seed is a keyed hash of a match's or league's secret.

A secret is drawn per match or league (``new_secret``: 256 random bits) and kept with
its results, so a resume, or a re-run from those results, deals every game again.
An organiser's ``--seed`` makes the secret public instead (``seed_secret``): the run
is reproducible from the command line, and whoever knows or guesses the seed knows
every card. A bot's own seed is hashed under another label than the deals: it says
nothing about a card, even to a bot with this source.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets

_SECRET = re.compile(r"[0-9a-f]{32,128}")
_SEED_SECRET = re.compile(r"seed:[0-9]+")
# below this an explicit seed can be found by trying every value
GUESSABLE_BELOW = 1 << 40


def derive_seed(*parts: object) -> int:
    """A 48-bit seed from ``parts``: stable across runs, platforms and Python versions (not secret)."""
    text = ":".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:6], "big")


def new_secret() -> str:
    """A fresh secret for a match or league: 256 random bits, as 64 hex digits."""
    return secrets.token_hex(32)


def is_secret(text: str) -> bool:
    """True for a secret as written by :func:`new_secret` (32-128 lower-case hex digits)."""
    return bool(_SECRET.fullmatch(text))


def is_kept_secret(text: str) -> bool:
    """True for a secret a league keeps: drawn (:func:`is_secret`) or an explicit seed's (:func:`seed_secret`)."""
    return is_secret(text) or bool(_SEED_SECRET.fullmatch(text))


def seed_secret(seed: int | str) -> str:
    """The secret an organiser's explicit ``--seed`` stands for: a kept secret as is, a number made public."""
    if isinstance(seed, str) and is_secret(seed):
        return seed
    return f"seed:{int(seed)}"


def seed_warning(seed: int | str) -> str:
    """The warning for an explicit seed: anyone who knows (or guesses) it knows every deal."""
    if isinstance(seed, str) and is_secret(seed):
        return (
            "warning: --seed: every deal follows from this secret; keep it from the bots' "
            "authors until the games are over"
        )
    if int(seed) < GUESSABLE_BELOW:
        return (
            f"warning: --seed {seed}: the deals follow from this number, and a bot can find a "
            "number this small by trying them all against its own cards, then predict every "
            "hand and the stock; leave --seed out for secret deals"
        )
    return (
        f"warning: --seed {seed}: every deal follows from this number; whoever knows it "
        "can predict every hand; leave --seed out for secret deals"
    )


@functools.lru_cache(maxsize=8)
def _key(secret: str) -> bytes:
    # one league hashes every game's seeds from one secret: derive its key once
    return hashlib.sha256(secret.encode()).digest()


def _keyed(secret: str, label: str, parts: tuple[object, ...], size: int) -> int:
    key = _key(secret)
    text = ":".join([label, *(str(part) for part in parts)]).encode()
    return int.from_bytes(hashlib.blake2b(text, key=key, digest_size=size).digest(), "big")


def deal_seed(secret: str, *parts: object) -> int:
    """A deal's seed (63 bits) from the secret and ``parts`` (e.g. the game number)."""
    return _keyed(secret, "deal", parts, 8) >> 1


def bot_seed(secret: str, *parts: object) -> int:
    """A bot's own seed (48 bits, as protocol v1 promises) from the secret, independent of every deal."""
    return _keyed(secret, "bot", parts, 6)


__all__ = [
    "bot_seed",
    "deal_seed",
    "derive_seed",
    "is_kept_secret",
    "is_secret",
    "new_secret",
    "seed_secret",
    "seed_warning",
]
