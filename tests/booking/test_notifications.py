"""Confirmation e-mails: escaped only where HTML needs it, never lost to one SMTP failure."""

import re
from datetime import datetime, timedelta
from decimal import Decimal
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.core.mail.backends import locmem
from django.core.management import call_command
from django.utils import timezone

from booking import notifications
from booking.models import Booking
from operator_profile.models import OperatorProfile
from operator_profile.services import profile_changed
from tests.processes import project_env, run_python

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid(settings, make_booking):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    return make_booking(
        reference="CB-ACDEFG",
        status="paid",
        origin="Café Landtmann & Co",
        email="obrien@example.com",
        name="Seán O'Brien",
        phone="+43 1 234",
        notes="2 bags",
        locale="en",
    )


def test_the_plain_text_mail_is_not_html_escaped(paid):
    assert notifications.send_confirmation(paid.pk)
    customer, operator = mail.outbox
    assert "Hello Seán O'Brien" in customer.body and "Café Landtmann & Co" in customer.body
    assert "O&#x27;Brien" in customer.alternatives[0][0]  # the HTML part is escaped, as it must be
    assert "+43 1 234" in operator.body and "2 bags" in operator.body
    assert "+43 1 234" not in customer.body


def test_an_smtp_failure_keeps_the_confirmation_pending_for_the_resend_command(paid, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 2  # nothing listens
    assert notifications.send_confirmation(paid.pk) is False
    assert Booking.objects.get().confirmation_sent_at is None
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    out = StringIO()
    call_command("send_confirmations", stdout=out)
    assert "Sent 1 of 1" in out.getvalue()
    assert Booking.objects.get().confirmation_sent_at is not None
    assert notifications.send_confirmation(paid.pk) is False  # once
    assert len(mail.outbox) == 2


@pytest.fixture
def german(make_booking):
    pickup = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Europe/Vienna"))
    return make_booking(
        reference="CB-KMNPQR",
        status="paid",
        email="anna@example.com",
        name="Anna Berger",
        locale="de",
        pickup_at=pickup,
        distance_km=Decimal("21.8"),
        vehicle_class="executive",
    )


def test_the_customer_mail_speaks_german_with_german_formats_and_display_names(german):
    assert notifications.send_confirmation(german.pk)
    (customer,) = mail.outbox
    assert customer.subject == "Zahlung für Ihre Buchung CB-KMNPQR erhalten"  # paid, not yet confirmed
    assert "Guten Tag Anna Berger," in customer.body
    assert "Abholung: 1. Dezember 2026, 10:00" in customer.body
    assert "Fahrzeug: Executive Class" in customer.body and "executive" not in customer.body
    assert "Strecke 21,8 km: 43,60\xa0€" in customer.body
    assert "Gesamt: 74,00\xa0€ (inkl. 10 % MwSt.: 6,73\xa0€ (netto 67,27\xa0€))" in customer.body
    html = customer.alternatives[0][0]
    assert 'lang="de"' in html and "1. Dezember 2026, 10:00" in html and "74,00\xa0€" in html


def test_the_subject_says_confirmed_only_when_staff_confirmed_the_ride(german):
    Booking.objects.filter(pk=german.pk).update(status="confirmed")
    assert notifications.send_confirmation(german.pk)
    assert mail.outbox[0].subject == "Ihre Buchung CB-KMNPQR ist bestätigt"
    assert "Ihre Fahrt ist bestätigt" in mail.outbox[0].body


def test_mails_come_from_the_operator_and_replies_reach_it(german, settings):
    settings.DEFAULT_FROM_EMAIL = "bookings@chauffeur.example.com"
    OperatorProfile.objects.filter(id=1).update(
        name="Wiener Chauffeur GmbH", email="office@chauffeur.example.com", phone="+43 1 234 56 78"
    )
    profile_changed()
    assert notifications.send_confirmation(german.pk)
    (customer,) = mail.outbox
    assert customer.from_email == "Wiener Chauffeur GmbH <bookings@chauffeur.example.com>"
    assert customer.reply_to == ["office@chauffeur.example.com"]
    assert "Wiener Chauffeur GmbH · +43 1 234 56 78 · office@chauffeur.example.com" in customer.body


def test_the_default_sender_is_on_the_public_host_not_localhost():
    result = run_python(
        "-c",
        "import django; django.setup(); from django.conf import settings; print(settings.DEFAULT_FROM_EMAIL)",
        env=project_env(DJANGO_DEBUG="true", PUBLIC_BASE_URL="https://chauffeur.example.com"),
    )
    assert result.stdout.strip() == "bookings@chauffeur.example.com", result.stderr


class RecordingBackend(locmem.EmailBackend):
    """The SMTP boundary: notes whether the booking already counted as sent while its mail was handed over."""

    seen_sent_at: list = []

    def send_messages(self, messages):
        RecordingBackend.seen_sent_at.append(Booking.objects.get().confirmation_sent_at)
        return super().send_messages(messages)


def test_a_confirmation_is_marked_sent_only_once_delivered(paid, settings):
    settings.EMAIL_BACKEND = f"{__name__}.RecordingBackend"
    RecordingBackend.seen_sent_at.clear()
    assert notifications.send_confirmation(paid.pk)
    assert RecordingBackend.seen_sent_at[0] is None  # not yet marked while the mail was on its way
    stored = Booking.objects.get()
    assert stored.confirmation_sent_at is not None and stored.confirmation_claimed_at is None


def test_a_sender_that_died_leaves_a_claim_that_lapses_and_the_resend_command_sends(paid):
    """A worker killed between its claim and the mail: nothing counts as sent."""
    Booking.objects.filter(pk=paid.pk).update(confirmation_claimed_at=timezone.now() - timedelta(minutes=1))
    assert notifications.send_confirmation(paid.pk) is False and mail.outbox == []  # still someone's
    Booking.objects.filter(pk=paid.pk).update(confirmation_claimed_at=timezone.now() - timedelta(minutes=11))
    out = StringIO()
    call_command("send_confirmations", stdout=out)
    assert "Sent 1 of 1" in out.getvalue() and len(mail.outbox) == 2  # the customer's and the copy
    assert Booking.objects.get().confirmation_sent_at is not None


def test_a_bad_operator_name_stored_before_does_not_stop_any_mail(make_booking, settings):
    OperatorProfile.objects.update(  # from before the admin refused line breaks
        name="Wiener\r\nBcc: everyone@example.org", email="office@x.example\r\nBcc: y@z"
    )
    profile_changed()
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    booking = make_booking(status="paid", email="anna@example.com", name="Anna")
    assert notifications.send_confirmation(booking.pk)
    notifications.alert_operator(booking.pk, "a test")
    assert len(mail.outbox) == 3
    for message in mail.outbox:
        sent = message.message().as_string()  # what SMTP would carry: BadHeaderError would raise here
        assert not re.search(r"^Bcc", sent.split("\n\n", 1)[0], re.MULTILINE)
        assert message.from_email == '"Wiener Bcc: everyone@example.org" <bookings@127.0.0.1>'
        assert message.reply_to == []
