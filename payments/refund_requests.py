"""A refund staff ask for, made once. The confirmation step hands out a one-time key that is stored with
the Refund it makes: the same confirmation sent twice (a double click, a reload, a second tab) finds the
first refund instead of making a second. Twins wait on the booking's row lock, so the second one sees
the first's key once it has committed; the unique column stands behind that."""

import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import selectors
from payments import refunds
from payments.models import Refund

KEY_PATTERN = r"^[A-Za-z0-9_-]{20,64}$"


def new_key() -> str:
    return secrets.token_urlsafe(24)  # 32 characters


@dataclass(frozen=True)
class Requested:
    refunds: list[Refund]  # one per payment the money went back to
    made_now: bool  # False: this key's refund was made before, nothing moved now


def refund_once(pk: int, amount_cents: int, *, key: str, **details) -> Requested:
    """`refunds.refund` of booking `pk` under the one-time `key`; all of it, or nothing."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        earlier = Refund.objects.filter(request_key=key).first()
        if earlier is not None:
            if earlier.booking_id != booking.pk:
                raise DomainError(_("This confirmation belongs to another booking: nothing was refunded."))
            return Requested([earlier], made_now=False)
        made = refunds.refund(booking, amount_cents, **details)
        first = made[0]  # the key is unique: the first piece carries it for all
        Refund.objects.filter(pk=first.pk).update(request_key=key)
        first.request_key = key
    return Requested(made, made_now=True)
