"""Company accounts with bookings on account, as the onaccount door leaves them: payment method
ACCOUNT, the company set, no ride invoice."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from booking.models import Booking, PaymentMethod
from corporate.models import CompanyAccount
from operator_profile.models import OperatorProfile
from tests.booking.conftest import make_booking  # noqa: F401

VIENNA = ZoneInfo("Europe/Vienna")


def vienna(*args: int) -> datetime:
    return datetime(*args, tzinfo=VIENNA)


@pytest.fixture(autouse=True)
def operator(db):
    OperatorProfile.objects.filter(id=1).update(
        legal_name="Wiener Chauffeur GmbH",
        street_address="Kärntner Ring 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
        email="office@chauffeur.test",
        phone="+43 1 234 56 78",
        iban="AT61 1904 3002 3457 3201",
        bic="BKAUATWW",
    )


@pytest.fixture
def acme(db) -> CompanyAccount:
    return CompanyAccount.objects.create(
        name="Acme Handels GmbH",
        street_address="Mariahilfer Straße 10",
        postcode="1070",
        city="Wien",
        vat_id="ATU99999999",
        billing_email="buchhaltung@acme.example",
        payment_terms_days=14,
        bookers="@acme.example",
        language="de",
    )


@pytest.fixture
def globex(db) -> CompanyAccount:
    return CompanyAccount.objects.create(
        name="Globex Ltd",
        street_address="1 Canary Wharf",
        postcode="E14 5AB",
        city="London",
        country="GB",
        vat_id="GB123456789",
        billing_email="accounts@globex.example",
        payment_terms_days=30,
        bookers="anna@globex.example",
        language="en",
    )


@pytest.fixture
def on_account(make_booking):  # noqa: F811 (the fixture imported above)
    """A booking on a company's account, picked up at `pickup`."""

    def make(account: CompanyAccount, pickup: datetime, status: str = "completed", **fields) -> Booking:
        values = {
            "company_account": account,
            "payment_method": PaymentMethod.ACCOUNT,
            "status": status,
            "pickup_at": pickup,
            "name": "Anna Berger",
            "email": "anna@acme.example",
            "locale": "de",
        }
        return make_booking(**{**values, **fields})

    return make
