"""The documented on-account door (docs/operations/booking-on-account.md): staff tie an API token to a
company account in the admin's token form or with `manage.py issue_token --company-account`, and that
token books on the account over REST v1 and MCP. Every refusal stores nothing."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from access import tokens
from access.models import ApiToken
from booking.models import Booking, BookingStatus, PaymentMethod
from corporate.models import CompanyAccount
from tests.booking import test_on_account
from tests.booking.test_on_account import v1_checkout
from tests.mcp_endpoint.mcp import call, checkout_arguments, tool_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
ADD = "/admin/access/apitoken/add/"
company = test_on_account.company  # the fixture: Beispiel GmbH, its bookers anna@example.com and @beispiel.at


def other_account(name: str, **fields) -> CompanyAccount:
    address = {
        "street_address": "Ring 1",
        "postcode": "1010",
        "city": "Wien",
        "billing_email": "b@example.com",
    }
    return CompanyAccount.objects.create(name=name, **address, **fields)


def issued(*args: str) -> tuple[ApiToken, dict[str, str], str]:
    out = StringIO()
    call_command(
        "issue_token",
        "Beispiel travel desk",
        "--scope",
        "booking.read",
        "--scope",
        "booking.write",
        *args,
        stdout=out,
    )
    plain = out.getvalue().strip().splitlines()[-1]
    token = tokens.authenticate(plain)
    return token, {"HTTP_AUTHORIZATION": f"Bearer {plain}"}, out.getvalue()


def assert_booked_on_account(company: CompanyAccount, channel: str) -> None:
    booking = Booking.objects.get()
    assert booking.status == BookingStatus.PAID and booking.payment_method == PaymentMethod.ACCOUNT
    assert booking.company_account == company and booking.channel == channel


@pytest.mark.parametrize("named_by", ["id", "name"])
def test_a_token_issued_with_the_option_books_on_account_over_rest(client, company, named_by):
    token, headers, said = issued(
        "--company-account", str(company.pk) if named_by == "id" else "beispiel gmbh"
    )
    assert token.company_account == company
    assert f"on account of 'Beispiel GmbH' (id {company.pk})" in said
    response = v1_checkout(client, headers)
    assert response.status_code == 201, response.content
    assert response.json()["paymentMethod"] == "account"
    assert_booked_on_account(company, "api")


def test_a_token_issued_with_the_option_books_on_account_over_mcp(client, company):
    _, headers, _ = issued("--company-account", str(company.pk))
    arguments = {**checkout_arguments(client, headers), "paymentMethod": "account"}
    result = tool_result(call(client, headers, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    assert result["structuredContent"]["status"] == "paid"
    assert_booked_on_account(company, "agent")


def test_a_token_issued_without_the_option_is_refused_on_account(client, company):
    _, headers, _ = issued()
    response = v1_checkout(client, headers)
    assert response.status_code == 403 and response.json()["code"] == "account_not_allowed"
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(
    ("named", "message"),
    [
        ("999", "No company account '999'"),
        ("Nobody AG", "No company account 'Nobody AG'"),
        ("Twice KG", "2 company accounts are named 'Twice KG': give the id"),
        ("Sleeping GmbH", "is inactive"),
    ],
)
def test_issue_token_refuses_an_unknown_ambiguous_or_inactive_account_issuing_nothing(
    company, named, message
):
    for _ in range(2):
        CompanyAccount.objects.create(
            name="Twice KG", street_address="x", postcode="1", city="Wien", billing_email="a@twice.at"
        )
    CompanyAccount.objects.create(
        name="Sleeping GmbH",
        street_address="x",
        postcode="1",
        city="Wien",
        billing_email="a@sleep.at",
        active=False,
    )
    with pytest.raises(CommandError, match=message):
        issued("--company-account", named)
    assert ApiToken.objects.count() == 0


def test_staff_tie_a_token_to_an_account_in_the_admin_form(admin_client, company, client):
    sleeping = other_account("Sleeping GmbH", active=False)
    form = admin_client.get(ADD).content.decode()
    assert 'name="company_account"' in form and "Beispiel GmbH" in form
    assert "Sleeping GmbH" not in form  # only active accounts are offered
    data = {
        "name": "Beispiel desk",
        "scopes": ["booking.read", "booking.write"],
        "company_account": company.pk,
        "expires_at_0": "",
        "expires_at_1": "",
        "rate_limit": "",
    }
    page = admin_client.post(ADD, data).content.decode()
    plain = re.search(r'id="issued-token"[^>]* value="(cbt_[^"]+)"', page)[1]
    assert "Its checkouts may book on the account of <strong>Beispiel GmbH</strong>" in page
    token = ApiToken.objects.get()
    assert token.company_account == company and tokens.authenticate(plain) == token
    response = v1_checkout(client, {"HTTP_AUTHORIZATION": f"Bearer {plain}"})
    assert response.status_code == 201, response.content
    assert_booked_on_account(company, "api")
    refused = admin_client.post(ADD, {**data, "name": "Other", "company_account": sleeping.pk})
    assert refused.status_code == 200 and "Select a valid choice" in refused.content.decode()
    assert ApiToken.objects.count() == 1


def test_the_account_page_lists_the_tokens_tied_to_it(admin_client, company):
    issued("--company-account", str(company.pk))
    html = admin_client.get(f"/admin/business/companyaccount/{company.pk}/change/").content.decode()
    assert "Beispiel travel desk" in html
