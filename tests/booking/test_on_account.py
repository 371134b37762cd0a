"""Booking on a company's account through REST v1 and MCP (booking/on_account.py): a token tied to an active
account books for one of its bookers, paid at once with no invoice of its own and nothing received; every
refusal stores nothing. And the customer's billing address and UID on the invoice, from both doors."""

import io
import re

import hypothesis
import pytest
from django.db import transaction
from hypothesis import strategies
from jsonschema import Draft202012Validator, FormatChecker
from pypdf import PdfReader

from booking import selectors
from booking.billing import VAT_ID_FORMATS, VAT_ID_PATTERN, normalised_vat_id, valid_vat_id
from booking.models import Booking, BookingStatus, PaymentMethod
from corporate.models import CompanyAccount
from invoicing import invoice_pdf
from invoicing.models import Invoice
from payments import cancellation, payment_updates
from payments.models import Refund
from tests.booking.test_checkout import ride, server_amount
from tests.conftest import assert_problem, bearer
from tests.mcp_endpoint.mcp import call, checkout_arguments, output_validator, tool_problem, tool_result
from tests.payments import ledger_rows
from tests.payments.ledger_rows import received_cents

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

V1 = "/api/v1/checkout"
ADDRESS = "Beispiel GmbH\nKärntner Straße 1\n1010 Wien"


@pytest.fixture
def company(db) -> CompanyAccount:
    return CompanyAccount.objects.create(
        name="Beispiel GmbH",
        street_address="Kärntner Straße 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
        billing_email="buchhaltung@beispiel.at",
        bookers="anna@example.com\n@beispiel.at",
    )


@pytest.fixture
def company_token(company) -> dict[str, str]:
    return bearer("booking.read", "booking.write", company_account=company)


def v1_checkout(client, headers, *, payment_method: str | None = "account", **overrides):
    extra = {key: overrides.pop(key) for key in list(overrides) if key.startswith("HTTP_")}
    data = ride(**overrides)
    body = {"amount": server_amount(client, data), "bookingData": data}
    if payment_method:
        body["paymentMethod"] = payment_method
    return client.post(V1, body, content_type="application/json", **headers, **extra)


def v1_validator(client) -> Draft202012Validator:
    document = client.get("/openapi.json").json()
    response = document["paths"][V1]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    component = document["components"]["schemas"][response["$ref"].rsplit("/", 1)[1]]
    return Draft202012Validator(component, format_checker=FormatChecker())


def pdf_text(invoice: Invoice) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(invoice))).pages)


def assert_on_account(booking: Booking, company: CompanyAccount) -> None:
    assert booking.status == BookingStatus.PAID and booking.paid_at is not None
    assert booking.payment_method == PaymentMethod.ACCOUNT and booking.company_account == company
    assert received_cents(booking) == 0  # the company pays its monthly invoice, not this ride now
    assert not Invoice.objects.filter(booking=booking).exists()  # the collective invoice lists it
    assert ledger_rows.session_of(booking) is None


# --- REST v1 --------------------------------------------------------------------------------------------


def test_a_company_token_books_on_account_paid_at_once_without_an_invoice(
    client, company, company_token, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = v1_checkout(client, company_token)
    assert response.status_code == 201, response.content
    body = response.json()
    v1_validator(client).validate(body)
    booking = Booking.objects.get()
    assert body["reference"] == booking.reference and body["status"] == "paid"
    assert body["sessionId"] is None and body["url"] is None and body["paymentMethod"] == "account"
    assert body["manageUrl"].startswith("https://chauffeur.test/booking/manage?booking=")
    assert_on_account(booking, company)
    mail = next(message for message in mailoutbox if message.to == ["anna@example.com"])
    assert "Auf Rechnung von Beispiel GmbH; monatlich verrechnet." in mail.body  # the booking's German
    assert "auf Firmenrechnung" in mail.subject
    assert not mail.attachments or all(not name.endswith(".pdf") for name, *_ in mail.attachments)


def test_a_checkout_answer_keeps_its_four_members(client, company_token):
    response = v1_checkout(client, company_token, payment_method=None)
    assert response.status_code == 201, response.content
    assert set(response.json()) == {"sessionId", "url", "reference", "status"}
    v1_validator(client).validate(response.json())
    assert Booking.objects.get().payment_method == PaymentMethod.CHECKOUT


@pytest.mark.parametrize("refusal", ["no account", "address not allowed", "inactive account"])
def test_a_booking_on_account_is_refused_storing_nothing(client, company, refusal):
    headers = bearer("booking.write", company_account=None if refusal == "no account" else company)
    if refusal == "inactive account":
        CompanyAccount.objects.filter(pk=company.pk).update(active=False)
    email = "mallory@elsewhere.at" if refusal == "address not allowed" else "anna@example.com"
    response = v1_checkout(client, headers, email=email)
    body = assert_problem(response, 403, "account_not_allowed")
    assert "example.com" not in body["detail"]  # the refusal names no address
    assert Booking.objects.count() == 0 and Invoice.objects.count() == 0


def test_a_domain_booker_may_book_and_a_subdomain_may_not(client, company, company_token):
    assert v1_checkout(client, company_token, email="ben@beispiel.at").status_code == 201
    assert_problem(v1_checkout(client, company_token, email="ben@x.beispiel.at"), 403, "account_not_allowed")
    assert Booking.objects.count() == 1


def test_an_idempotent_retry_on_account_books_once(client, company_token):
    first = v1_checkout(client, company_token, HTTP_IDEMPOTENCY_KEY="acc-1")
    again = v1_checkout(client, company_token, HTTP_IDEMPOTENCY_KEY="acc-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Booking.objects.count() == 1


def test_an_unknown_payment_method_is_invalid(client, company_token):
    response = v1_checkout(client, company_token, payment_method="cash")
    assert_problem(response, 400, "invalid_request", "paymentMethod")
    assert Booking.objects.count() == 0


def test_the_legacy_checkout_is_unchanged(client, company):
    data = ride(email="anna@example.com")
    response = client.post(
        "/api/create-checkout-session",
        {"amount": server_amount(client, data), "bookingData": data},
        content_type="application/json",
    )
    assert set(response.json()) == {"sessionId", "url"}
    assert Booking.objects.get().payment_method == PaymentMethod.CHECKOUT


def test_cancelling_a_ride_on_account_refunds_nothing_and_keeps_the_fee(client, company, company_token):
    from datetime import timedelta

    from django.utils import timezone

    v1_checkout(client, company_token)
    booking = Booking.objects.get()
    # Inside the late window: the policy's fee stays on the booking for the collective invoice.
    Booking.objects.filter(pk=booking.pk).update(pickup_at=timezone.now() + timedelta(hours=3))
    booking.refresh_from_db()
    terms = cancellation.terms(booking)
    assert terms.refund_cents == 0 and terms.fee_cents > 0
    cancelled = cancellation.cancel(booking.pk, actor="test")
    assert cancelled.status == BookingStatus.CANCELLED
    assert cancelled.cancellation_fee_cents == terms.fee_cents and received_cents(cancelled) == 0
    assert Refund.objects.count() == 0


# --- MCP ------------------------------------------------------------------------------------------------


def test_the_agent_tool_books_on_account(client, company, company_token):
    arguments = {**checkout_arguments(client, company_token), "paymentMethod": "account"}
    result = tool_result(call(client, company_token, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    output_validator(client, company_token, "booking.create_checkout").validate(result["structuredContent"])
    booking = Booking.objects.get()
    assert result["structuredContent"]["reference"] == booking.reference
    assert result["structuredContent"]["status"] == "paid" and result["structuredContent"]["url"] is None
    assert_on_account(booking, company)
    assert booking.channel == "agent"


@pytest.mark.parametrize("refusal", ["no account", "address not allowed", "inactive account"])
def test_the_agent_tool_refuses_on_account_storing_nothing(client, company, refusal):
    headers = bearer(
        "booking.read", "booking.write", company_account=None if refusal == "no account" else company
    )
    if refusal == "inactive account":
        CompanyAccount.objects.filter(pk=company.pk).update(active=False)
    email = "mallory@elsewhere.at" if refusal == "address not allowed" else "anna@example.com"
    arguments = {**checkout_arguments(client, headers, email=email), "paymentMethod": "account"}
    problem = tool_problem(call(client, headers, "booking.create_checkout", arguments))
    assert problem["code"] == "account_not_allowed"
    assert Booking.objects.count() == 0


def test_the_agent_tool_declares_the_payment_method_and_billing_fields(client, agent):
    from tests.mcp_endpoint.mcp import result_of, rpc

    listed = {tool["name"]: tool for tool in result_of(rpc(client, agent, "tools/list"))["tools"]}
    schema = listed["booking.create_checkout"]["inputSchema"]
    payment_method = schema["properties"]["paymentMethod"]  # optional: null allowed beside it
    assert payment_method["anyOf"] == [{"enum": ["checkout", "account"], "type": "string"}, {"type": "null"}]
    assert schema["required"] == ["amount", "bookingData"]
    ride_schema = schema["properties"]["bookingData"]["properties"]
    billing_address = ride_schema["billingAddress"]
    text = next(item for item in billing_address.get("anyOf", [billing_address]) if item["type"] == "string")
    assert text["maxLength"] == 300  # characters as sent; trimmed when stored
    # what is accepted, as JSON Schema says: an id of the table, or nothing
    an_id, nothing, null = ride_schema["billingVatId"]["anyOf"]
    assert (an_id["pattern"], nothing["maxLength"], null) == (VAT_ID_PATTERN, 0, {"type": "null"})


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(typed=strategies.from_regex(VAT_ID_PATTERN))
def test_every_uid_the_declared_pattern_allows_is_one_of_an_eu_country(typed):
    printed = normalised_vat_id(typed)
    assert valid_vat_id(typed)
    if printed:  # separators only are no id: stored blank
        assert re.fullmatch(f"(?:{VAT_ID_FORMATS[printed[:2]]})", printed[2:]), printed
        assert printed.isascii()


# --- the billing address and UID on the invoice ---------------------------------------------------------


def test_the_v1_billing_address_and_uid_reach_the_invoice_pdf(client, writer):
    response = v1_checkout(
        client, writer, payment_method=None, billingAddress=ADDRESS, billingVatId="atu 1234 5678"
    )
    assert response.status_code == 201, response.content
    booking = Booking.objects.get()
    assert (booking.billing_address, booking.billing_vat_id) == (ADDRESS, "ATU12345678")
    with transaction.atomic():  # as a payment moves it: paid, with its invoice
        payment_updates.move_to_paid([selectors.locked_booking(booking.pk)], actor="test")
    text = pdf_text(Invoice.objects.get(booking=booking))
    assert "Kärntner Straße 1" in text and "1010 Wien" in text and "ATU12345678" in text


def test_the_agent_billing_address_reaches_the_invoice_pdf(client, agent):
    arguments = checkout_arguments(client, agent, billingAddress=ADDRESS, billingVatId="DE123456789")
    assert tool_result(call(client, agent, "booking.create_checkout", arguments))["isError"] is False
    booking = Booking.objects.get()
    with transaction.atomic():  # as a payment moves it: paid, with its invoice
        payment_updates.move_to_paid([selectors.locked_booking(booking.pk)], actor="test")
    text = pdf_text(Invoice.objects.get(booking=booking))
    assert "Beispiel GmbH" in text and "Kärntner Straße 1" in text and "DE123456789" in text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("billingVatId", "ATU1234"),
        ("billingVatId", "US123456789"),
        ("billingVatId", "\x1cATU12345678"),  # a separator JSON Schema's \\s and Python's disagree on
        ("billingVatId", "ATU١٢٣٤٥٦٧٨"),  # digits, to Python's \\d only
        ("billingAddress", "x" * 301),
    ],
)
def test_bad_billing_details_are_refused_storing_nothing(client, writer, field, value):
    response = v1_checkout(client, writer, payment_method=None, **{field: value})
    assert_problem(response, 400, "invalid_request", f"bookingData.{field}")
    assert Booking.objects.count() == 0
