"""Deal seeds as the service publishes them: integers below 2**53 (``SEED_LIMIT``), so that a JSON client
(JavaScript, jq) reads them exactly and can recompute the commitment from the number it parsed.

Design: docs/deals.md#the-commitment
"""

from __future__ import annotations

import hashlib
import secrets

SEED_BITS = 53
SEED_LIMIT = 1 << SEED_BITS  # 9007199254740992: below it every integer is exact as a JSON double


def new_seed() -> int:
    """A fresh secret seed (cryptographic randomness: a seed decides every deal of a game).

    >>> 0 <= new_seed() < SEED_LIMIT
    True
    """
    return secrets.randbits(SEED_BITS)


def derive_seed(*parts: object) -> int:
    """A deterministic seed from `parts` (sha256 of their ':'-joined text), unrelated to any of them.

    >>> derive_seed("rerun", 7, 2) == derive_seed("rerun", 7, 2) < SEED_LIMIT
    True
    """
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)
