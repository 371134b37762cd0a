"""References people read out over a phone ("CB-4KX9QT"): drawn at random from letters and digits that
cannot be mistaken for one another, and a row stored under one that no other row has."""

import secrets
from collections.abc import Callable
from typing import TypeVar

from django.db import IntegrityError, transaction

ALPHABET = "ACDEFGHJKLMNPQRTUVWXY34679"  # no 0/O, 1/I/L, 2/Z, 5/S, 8/B
LENGTH = 6  # 26^6: about 300 million
ATTEMPTS = 5

Row = TypeVar("Row")


def drawn(prefix: str) -> str:
    return prefix + "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def stored_under_a_free_one(create: Callable[[str], Row], prefix: str) -> Row:
    """What `create(reference)` stores, under a reference drawn again while the draw is taken; each attempt
    in a savepoint, so a taken one leaves the caller's transaction usable."""
    for _attempt in range(ATTEMPTS):
        try:
            with transaction.atomic():
                return create(drawn(prefix))
        except IntegrityError:
            continue
    raise RuntimeError(f"Could not draw a free {prefix} reference")
