"""A booking's reference: drawn from letters and digits read out over a phone without doubt, and drawn again
when the draw is taken, without spoiling the transaction it is stored in (a return trip stores two)."""

import re

import pytest
from django.db import transaction

from booking.models import Booking
from sitekit import references

pytestmark = pytest.mark.django_db


def test_a_reference_has_no_letter_or_digit_that_reads_as_another():
    drawn = {references.drawn("CB-") for _ in range(200)}
    assert all(re.fullmatch(r"CB-[ACDEFGHJKLMNPQRTUVWXY34679]{6}", reference) for reference in drawn)
    assert len(drawn) > 190  # at random


def test_a_reference_taken_is_drawn_again_and_the_callers_transaction_goes_on(make_booking):
    taken = make_booking()
    tried = []

    def create(reference: str) -> Booking:
        tried.append(reference)
        return make_booking(reference=taken.reference if len(tried) == 1 else reference)

    with transaction.atomic():  # as a return trip stores its rides
        stored = references.stored_under_a_free_one(create, "CB-")
        assert Booking.objects.filter(pk=taken.pk).exists()  # still usable after the collision

    assert len(tried) == 2 and stored.reference == tried[1] != taken.reference
    assert set(Booking.objects.values_list("reference", flat=True)) == {taken.reference, stored.reference}


def test_no_free_reference_after_every_attempt_stores_nothing(make_booking):
    taken = make_booking()

    with pytest.raises(RuntimeError, match="Could not draw a free CB- reference"):
        references.stored_under_a_free_one(lambda _reference: make_booking(reference=taken.reference), "CB-")

    assert list(Booking.objects.values_list("pk", flat=True)) == [taken.pk]
