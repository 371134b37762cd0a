"""Phones stored as typed before every door checked them become E.164 (booking/migrations/0017); what is no
number stays as it was, and the migration does not stop on it."""

import pytest

from booking.models import Booking
from tests.booking.conftest import make_booking  # noqa: F401 (a fixture)
from tests.migrating import migrate, migrate_to_latest

BEFORE = [("booking", "0016_company_account_billing_address_austria_share")]
STORED = {
    "0664 123 45 67": "+436641234567",
    "+43 664/1234567": "+436641234567",
    "0049 151 55504040": "+4915155504040",
    "+436601112223": "+436601112223",
    "abc": "abc",
    "0800 FLOWERS": "0800 FLOWERS",
    "=1+2": "=1+2",
    "+43 1": "+43 1",
    "0664 1234567 ext 5": "0664 1234567 ext 5",
    "": "",
}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_typed_phones_become_e164_and_the_rest_stays(make_booking):  # noqa: F811
    # Stored through today's model (an older schema lacks its later columns), then taken back to before the
    # migration and forward again, so it meets them as it would have.
    ids = {typed: make_booking(phone=typed).pk for typed in STORED}
    migrate(BEFORE)
    migrate_to_latest()
    assert {typed: Booking.objects.get(pk=pk).phone for typed, pk in ids.items()} == STORED
