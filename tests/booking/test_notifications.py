"""Confirmation e-mails: escaped only where HTML needs it, never lost to one SMTP failure."""

from io import StringIO

import pytest
from django.core import mail
from django.core.management import call_command

from booking import notifications
from booking.models import Booking

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid(settings, make_booking):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    return make_booking(
        reference="CB-ACDEFG", status="paid", origin="Café Landtmann & Co", email="obrien@example.com",
        name="Seán O'Brien", phone="+43 1 234", notes="2 bags", locale="en",
    )  # fmt: skip


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
