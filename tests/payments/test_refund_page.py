"""Refunds from the staff booking page: nothing filled in for staff, a confirmation
that states booking, amount and method before money moves, 20,00 and 20.00 read alike in both languages,
and a confirmation sent twice refunds once."""

import re
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection, connections
from django.test import Client
from django.utils import timezone

from booking.models import Booking, BookingEvent
from payments.models import Refund

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture
def accountant(client):
    user = User.objects.create_user("vera", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=["view_booking", "refund_booking"]))
    client.force_login(user)
    return client


@pytest.fixture
def paid(make_booking):
    def make(**fields) -> Booking:
        values = {
            "status": "paid",
            "paid_at": timezone.now(),
            "payment_intent_id": "sbx_pi_1",
            "duration_s": 1455,
            "distance_km": Decimal("21.8"),
            "name": "Anna Berger",
            "email": "anna@example.com",
            "pickup_at": timezone.now() + timedelta(days=3),
        }
        return make_booking(**{**values, **fields})

    return make


@pytest.fixture
def invoiced(paid):
    return paid(payment_method="invoice", payment_intent_id="")


def url(booking) -> str:
    return f"/admin/booking/booking/{booking.pk}/refund/"


def confirmation(client, booking, language="en", **data):
    response = client.post(url(booking), {"reason": "", **data}, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response


def confirm(client, booking, first) -> dict:
    """The confirmation form exactly as the page renders it."""
    html = first.content.decode()
    form = html[html.index('id="confirm-refund-form"') :]
    return dict(
        re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form[: form.index("</form>")])
    )


def test_the_refund_form_is_not_filled_in(accountant, paid):
    booking = paid()
    for path in (f"/admin/booking/booking/{booking.pk}/change/", url(booking)):
        html = accountant.get(path).content.decode()
        amount = re.search(r'<input[^>]*name="amount"[^>]*>', html).group(0)
        assert "value=" not in amount, amount
        # what may be refunded is said, not typed in
        assert "at most €74.00" in html, path


@pytest.mark.parametrize(
    ("language", "typed", "shown"),
    [
        ("de", "20,00", "20,00\xa0€"),
        ("de", "20.00", "20,00\xa0€"),
        ("en", "20,00", "€20.00"),
        ("en", "20.00", "€20.00"),
        ("en", " 20,5 ", "€20.50"),
        ("de", "20", "20,00\xa0€"),
    ],
)
def test_either_decimal_mark_reads_in_either_language(accountant, paid, language, typed, shown):
    booking = paid()
    page = confirmation(accountant, booking, language, amount=typed).content.decode()
    assert booking.reference in page and shown in page
    assert not Refund.objects.exists()  # nothing moves before the confirmation


def test_the_form_error_speaks_the_staffs_language(accountant, paid):
    page = confirmation(accountant, paid(), "de", amount="1.000").content.decode()
    assert "kein Tausendertrennzeichen" in page and not Refund.objects.exists()


@pytest.mark.parametrize("typed", ["1.000", "20,005", "20 Euro", "-5", "0", "0,00", "", "1e3"])
def test_an_unreadable_amount_is_a_form_error_and_nothing_moves(accountant, paid, typed):
    booking = paid()
    page = confirmation(accountant, booking, amount=typed).content.decode()
    assert 'id="refund-form"' in page and "errorlist" in page and 'id="confirm-refund"' not in page
    assert not Refund.objects.exists() and not BookingEvent.objects.exists()


def test_the_confirmation_states_booking_amount_and_method(accountant, paid, invoiced):
    provider = confirmation(accountant, paid(), amount="20,00").content.decode()
    assert "through the payment provider" in provider
    manual = confirmation(accountant, paid(), amount="20,00", manual="on").content.decode()
    assert "paid back by staff outside the payment provider" in manual
    owed = confirmation(accountant, invoiced, amount="20,00").content.decode()
    assert "owed: the booking was not paid online" in owed
    german = confirmation(accountant, invoiced, "de", amount="20,00").content.decode()
    assert "20,00\xa0€" in german and invoiced.reference in german and "EUR" not in german
    assert "Bitte bestätigen Sie die Erstattung" in german and "20,00\xa0€ erstatten" in german
    assert "höchstens" not in german  # the first step's limit, not on the confirmation
    assert "offen: Die Buchung wurde nicht online bezahlt" in german
    assert not Refund.objects.exists()


def test_a_confirmation_sent_twice_refunds_an_invoice_booking_once(accountant, invoiced):
    first = confirmation(accountant, invoiced, amount="20,00", reason="Goodwill")
    form = confirm(accountant, invoiced, first)
    assert form["amount"] == "20.00" and len(form["key"]) >= 20
    once = accountant.post(url(invoiced), form, follow=True)
    twice = accountant.post(url(invoiced), form, follow=True)
    assert [str(m) for m in once.context["messages"]] == [
        f"{invoiced.reference}: refund of €20.00 by staff (pending)."
    ]
    assert [str(m) for m in twice.context["messages"]] == [
        f"{invoiced.reference}: this refund was confirmed before (sent twice); nothing more was refunded."
    ]
    refund = Refund.objects.get()
    assert (refund.amount_cents, refund.method, refund.status, refund.request_key) == (
        2000,
        "manual",
        "pending",
        form["key"],
    )
    assert BookingEvent.objects.filter(kind="refund").count() == 1


def test_a_confirmation_through_the_provider_twice_asks_the_provider_once(accountant, paid):
    booking = paid()
    form = confirm(accountant, booking, confirmation(accountant, booking, amount="10.00"))
    accountant.post(url(booking), form)
    accountant.post(url(booking), form)
    refund = Refund.objects.get()
    assert (refund.amount_cents, refund.method) == (1000, "provider") and refund.provider_refund_id


def test_two_confirmations_are_two_refunds(accountant, invoiced):
    """The key guards one confirmation: two refunds staff confirm one after the other are both made."""
    for amount in ("10,00", "5,00"):
        accountant.post(
            url(invoiced), confirm(accountant, invoiced, confirmation(accountant, invoiced, amount=amount))
        )
    assert sorted(Refund.objects.values_list("amount_cents", flat=True)) == [500, 1000]


@pytest.mark.parametrize(
    "language, why",
    [
        (
            "en",
            "A refund of {ref} must be between €0.01 and €74.00 (what was received and not yet refunded).",
        ),
        (
            "de",
            "Eine Erstattung für {ref} muss zwischen 0,01\u00a0€ und 74,00\u00a0€ liegen (was eingegangen und "
            "noch nicht erstattet ist).",
        ),
    ],
)
def test_a_confirmation_for_more_than_is_refundable_says_why_and_changes_nothing(
    accountant, invoiced, language, why
):
    form = confirm(accountant, invoiced, confirmation(accountant, invoiced, language, amount="74,01"))
    response = accountant.post(url(invoiced), form, follow=True, HTTP_ACCEPT_LANGUAGE=language)
    (said,) = [str(m) for m in response.context["messages"]]
    assert said == f"{invoiced.reference}: " + why.format(ref=invoiced.reference)
    assert not Refund.objects.exists() and not BookingEvent.objects.exists()
    # … and the key was not spent: corrected, the next confirmation goes through.
    accountant.post(url(invoiced), {**form, "amount": "74.00"})
    assert Refund.objects.get().amount_cents == 7400


@pytest.mark.parametrize("key", ["", "short", "<script>alert(1)</script>xxxxxxxxxxxxxx"])
def test_a_confirmation_without_a_valid_key_is_shown_again(accountant, invoiced, key):
    response = accountant.post(url(invoiced), {"amount": "20.00", "key": key, "confirm": "1"})
    page = response.content.decode()
    assert response.status_code == 200 and "This confirmation is no longer valid" in page
    assert not Refund.objects.exists()


def test_a_key_of_another_booking_refunds_nothing_here(accountant, invoiced, paid):
    form = confirm(accountant, invoiced, confirmation(accountant, invoiced, amount="20,00"))
    accountant.post(url(invoiced), form)
    other = paid(payment_method="invoice", payment_intent_id="")
    response = accountant.post(url(other), form, follow=True)
    assert "belongs to another booking" in str(list(response.context["messages"])[-1])
    assert list(Refund.objects.values_list("booking", flat=True)) == [invoiced.pk]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_five_clicks_at_once_on_one_confirmation_refund_once(paid):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises its writers; the race is PostgreSQL's (CI's second run)")
    booking = paid(payment_method="invoice", payment_intent_id="")
    user = User.objects.create_user("vera", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=["view_booking", "refund_booking"]))
    first = Client()
    first.force_login(user)
    form = confirm(first, booking, confirmation(first, booking, amount="20,00"))

    def click(_):
        try:
            staff = Client()
            staff.force_login(user)
            return staff.post(url(booking), form).status_code
        finally:
            connections.close_all()  # this thread's own connection, so the test database can be dropped

    with ThreadPoolExecutor(max_workers=5) as pool:
        assert list(pool.map(click, range(5))) == [302] * 5
    assert list(Refund.objects.values_list("amount_cents", flat=True)) == [2000]


def test_the_refund_is_worded_with_german_money_for_german_staff(accountant, paid):
    booking = paid(payment_method="invoice", payment_intent_id="")
    page = accountant.get(url(booking), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "höchstens 74,00\xa0€" in page  # the field's label says euros, the limit reads as German money
    form = confirm(accountant, booking, confirmation(accountant, booking, "de", amount="15,50"))
    done = accountant.post(url(booking), form, follow=True, HTTP_ACCEPT_LANGUAGE="de")
    assert [str(m) for m in done.context["messages"]] == [
        f"{booking.reference}: Erstattung von 15,50\xa0€ durch das Büro (ausstehend)."
    ]
    assert Refund.objects.get().amount_cents == 1550


def test_an_amount_below_a_cent_is_refused_with_the_cent_in_the_staffs_format(accountant, paid):
    booking = paid()
    german = confirmation(accountant, booking, "de", amount="0,00").content.decode()
    english = confirmation(accountant, booking, "en", amount="0.00").content.decode()
    assert "Der Betrag muss mindestens 0,01\xa0€ sein." in german
    assert "The amount must be at least €0.01." in english
    assert not Refund.objects.exists()
