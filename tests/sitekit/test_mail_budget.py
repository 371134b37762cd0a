"""Mails strangers can cause (sitekit/mail_budget.py): one count per address over every door that mails
without a sign-in, so a mailbox gets at most ANONYMOUS_MAILS_PER_RECIPIENT such mails an hour whichever
doors are used in turn."""

import pytest

from booking.models import Booking
from oauth import travellers
from oauth.models import SignInCode
from sitekit import mail_budget
from tests.web.test_account_link import book_on_account, company  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def test_each_address_has_its_own_budget(settings):
    settings.ANONYMOUS_MAILS_PER_RECIPIENT = 2
    assert [mail_budget.may_mail("anna@example.com") for _ in range(3)] == [True, True, False]
    assert mail_budget.may_mail(" Bert@Example.com ") and mail_budget.may_mail("bert@example.com")
    assert not mail_budget.may_mail("BERT@example.com")  # one mailbox, however it is written
    assert 3500 < mail_budget.spend("anna@example.com") <= 3600


def test_plus_addresses_of_one_mailbox_share_its_budget(settings):
    """`victim+1@…`, `victim+2@…` reach victim's mailbox: counting them apart would let a sender multiply
    the budget by the tags it invents."""
    settings.ANONYMOUS_MAILS_PER_RECIPIENT = 2
    assert mail_budget.may_mail("victim+1@example.com") and mail_budget.may_mail("Victim+2@Example.com")
    assert not mail_budget.may_mail("victim@example.com")
    assert not mail_budget.may_mail("victim+3@example.com")
    assert mail_budget.may_mail("other+1@example.com")  # another mailbox of the same domain
    assert mail_budget.mailbox("+tag@example.com") == "+tag@example.com"  # no local part left: as given


def test_on_account_links_and_sign_in_codes_share_the_budget(
    client,
    company,  # noqa: F811
    mailoutbox,
    django_capture_on_commit_callbacks,
    settings,
):
    settings.ANONYMOUS_MAILS_PER_RECIPIENT = 3
    for _ in range(3):
        book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    asked = travellers.request_code(
        email="anna@beispiel.at", session_key="browser-1", client="198.51.100.7", language="en"
    )
    assert not asked.sent and asked.retry_minutes >= 59
    assert not SignInCode.objects.exists() and Booking.objects.count() == 3
    assert len(mailoutbox) == 3


def test_sign_in_codes_beyond_the_budget_are_refused(settings):
    settings.ANONYMOUS_MAILS_PER_RECIPIENT = 2
    answers = [
        travellers.request_code(
            email="anna@example.com", session_key=f"browser-{n}", client=f"198.51.100.{n}", language="en"
        ).sent
        for n in range(3)
    ]
    assert answers == [True, True, False] and SignInCode.objects.count() == 2
