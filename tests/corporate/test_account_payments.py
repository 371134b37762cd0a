"""What companies owe (docs/operations/business.md): open until the recorded payments reach the
gross, overdue after the due date (Vienna), a payment above what is open refused with nothing recorded;
and the admin's pages: the company list's totals, the company's page, the payment form, the invoice
list's filter, the index's overdue total, the bookers' validation."""

from datetime import UTC, date, datetime

import pytest
import time_machine
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from apikit.errors import DomainError
from corporate.models import CompanyAccount
from invoicing.models import Invoice
from payments import account_payments, collective_invoices
from payments.models import AccountPayment
from tests.corporate.conftest import vienna

pytestmark = pytest.mark.django_db
OCTOBER = date(2026, 10, 1)


@pytest.fixture
def invoice(acme, on_account) -> Invoice:
    """Acme's October: two rides (148 EUR), issued on 2 November, due on 16 November."""
    on_account(acme, vienna(2026, 10, 5, 9, 0), reference="CB-OPEN01")
    on_account(acme, vienna(2026, 10, 6, 9, 0), reference="CB-OPEN02")
    with time_machine.travel(vienna(2026, 11, 2, 8, 0), tick=False):
        issued, created = collective_invoices.issue(acme, OCTOBER)
    assert created and issued.gross_cents == 14800 and issued.due_on == date(2026, 11, 16)
    return issued


def test_payments_move_an_invoice_from_open_to_paid(invoice):
    on = date(2026, 11, 10)
    assert account_payments.standing(invoice, on=on) == account_payments.Standing(14800, 0, 14800, False)
    account_payments.record(invoice.pk, amount_cents=10000, received_on=date(2026, 11, 9), note="part")
    partly = account_payments.standing(invoice, on=on)
    assert (partly.paid_cents, partly.open_cents, partly.status) == (10000, 4800, "open")
    account_payments.record(invoice.pk, amount_cents=4800, received_on=date(2026, 11, 12))
    paid = account_payments.standing(invoice, on=date(2027, 1, 1))  # long after the due date: still paid
    assert (paid.paid_cents, paid.open_cents, paid.overdue, paid.status) == (14800, 0, False, "paid")
    assert account_payments.totals(on=date(2027, 1, 1)) == (0, 0)


def test_an_invoice_is_overdue_the_day_after_its_due_date_in_vienna(invoice):
    assert account_payments.standing(invoice, on=date(2026, 11, 16)).status == "open"
    assert account_payments.standing(invoice, on=date(2026, 11, 17)).status == "overdue"
    assert account_payments.totals(on=date(2026, 11, 16)) == (14800, 0)
    assert account_payments.totals(on=date(2026, 11, 17)) == (14800, 14800)
    # 16 November 23:30 UTC is already the 17th in Vienna.
    with time_machine.travel(datetime(2026, 11, 16, 23, 30, tzinfo=UTC), tick=False):
        assert account_payments.standing(invoice).overdue
        assert list(account_payments.overdue_invoices()) == [invoice]
    with time_machine.travel(datetime(2026, 11, 16, 22, 30, tzinfo=UTC), tick=False):
        assert not account_payments.standing(invoice).overdue
        assert list(account_payments.overdue_invoices()) == []


@pytest.mark.parametrize("amount_cents", [14801, 0])
def test_a_payment_above_what_is_open_or_of_nothing_is_refused_and_nothing_is_recorded(invoice, amount_cents):
    account_payments.record(invoice.pk, amount_cents=100, received_on=date(2026, 11, 9))
    with pytest.raises(DomainError) as refused:
        account_payments.record(invoice.pk, amount_cents=amount_cents or 0, received_on=date(2026, 11, 9))
    assert refused.value.code == "account_payment_refused"
    assert list(AccountPayment.objects.values_list("payment__amount_cents", flat=True)) == [100]
    assert account_payments.standing(invoice).open_cents == 14700


def test_a_ride_invoice_takes_no_payment_on_account(invoice, make_booking):
    from payments import payment_updates

    booking = payment_updates.mark_paid(make_booking().pk, method="cash", user=None, actor="test")
    ride_invoice = Invoice.objects.get(booking=booking)
    with pytest.raises(DomainError):
        account_payments.record(ride_invoice.pk, amount_cents=100, received_on=date(2026, 11, 9))
    assert not AccountPayment.objects.exists()


# --- the admin ---------------------------------------------------------------------------------------------


@pytest.fixture
def staff(db) -> Client:
    user = User.objects.create_user("clara", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=[
                "view_companyaccount",
                "change_companyaccount",
                "add_companyaccount",
                "view_invoice",
                "add_accountpayment",
                "view_booking",
            ]
        )
    )
    client = Client()
    client.force_login(user)
    return client


@time_machine.travel(vienna(2026, 11, 20, 9, 0), tick=False)
def test_the_company_list_and_page_show_open_overdue_bookings_invoices_and_tokens(invoice, acme, staff):
    from access.models import ApiToken

    ApiToken.objects.create(name="Acme travel desk", prefix="ch_acme", digest="d" * 64, company_account=acme)
    listing = staff.get("/admin/business/companyaccount/", HTTP_ACCEPT_LANGUAGE="en")
    assert listing.status_code == 200
    text = listing.content.decode()
    assert "Acme Handels GmbH" in text and text.count("€148.00") == 2  # open and overdue
    page = staff.get(f"/admin/business/companyaccount/{acme.pk}/change/", HTTP_ACCEPT_LANGUAGE="de")
    html = page.content.decode()
    for shown in (
        "Sammelrechnungen",
        invoice.number,
        "überfällig",
        "148,00",
        "CB-OPEN01",
        "CB-OPEN02",
        "Acme travel desk",
        "Zahlung erfassen",
        reverse("admin:invoicing_invoice_pdf", args=[invoice.pk]),
    ):
        assert shown in html, shown
    pdf = staff.get(reverse("admin:invoicing_invoice_pdf", args=[invoice.pk]))
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"


@time_machine.travel(vienna(2026, 11, 20, 9, 0), tick=False)
def test_staff_record_a_payment_and_an_over_payment_is_refused_on_the_form(invoice, acme, staff):
    url = reverse("admin:invoicing_invoice_payment", args=[invoice.pk])
    refused = staff.post(url, {"amount": "148,01", "received_on": "2026-11-19", "note": "zu viel"})
    assert refused.status_code == 200 and "more than the €148.00 still open" in refused.content.decode()
    german = staff.post(url, {"amount": "148,01", "received_on": "2026-11-19"}, HTTP_ACCEPT_LANGUAGE="de")
    assert "noch offenen 148,00\xa0€" in german.content.decode()
    assert not AccountPayment.objects.exists()
    done = staff.post(url, {"amount": "148,00", "received_on": "2026-11-19", "note": "Überweisung"})
    assert done.status_code == 302
    listed = staff.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<td>148,00\xa0€</td><td>Überweisung</td>" in listed  # the recorded payment, in German money
    payment = AccountPayment.objects.get()
    assert (payment.amount_cents, payment.received_on, payment.note) == (
        14800,
        date(2026, 11, 19),
        "Überweisung",
    )
    assert payment.recorded_by.username == "clara"
    assert account_payments.standing(invoice).status == "paid"


def test_recording_a_payment_needs_its_permission(invoice, db):
    user = User.objects.create_user("otto", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_invoice"))
    client = Client()
    client.force_login(user)
    url = reverse("admin:invoicing_invoice_payment", args=[invoice.pk])
    assert client.post(url, {"amount": "1", "received_on": "2026-11-19"}).status_code == 403
    assert not AccountPayment.objects.exists()


@time_machine.travel(vienna(2026, 11, 20, 9, 0), tick=False)
def test_the_invoice_list_filters_open_and_overdue_and_the_index_shows_the_overdue_total(
    invoice, staff, acme
):
    with time_machine.travel(vienna(2026, 12, 1, 8, 0), tick=False):
        paid = collective_invoices.issue(acme, date(2026, 11, 1))[0]  # none: November has no ride
    assert paid is None
    listing = staff.get("/admin/invoicing/invoice/?standing=overdue", HTTP_ACCEPT_LANGUAGE="en")
    assert listing.status_code == 200 and invoice.number in listing.content.decode()
    assert "overdue: €148.00" in listing.content.decode()
    page = staff.get(
        f"/admin/invoicing/invoice/{invoice.pk}/change/", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "Acme Handels GmbH" in page and "overdue: €148.00" in page
    account_payments.record(invoice.pk, amount_cents=14800, received_on=date(2026, 11, 19))
    for standing in ("overdue", "open"):
        listing = staff.get(f"/admin/invoicing/invoice/?standing={standing}", HTTP_ACCEPT_LANGUAGE="en")
        assert invoice.number not in listing.content.decode()


@time_machine.travel(vienna(2026, 11, 20, 9, 0), tick=False)
def test_the_admin_index_shows_what_is_overdue_with_a_link(invoice, admin_client):
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="overdue-total">€148.00' in index and "?standing=overdue" in index
    account_payments.record(invoice.pk, amount_cents=4800, received_on=date(2026, 11, 19))
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="overdue-total">€100.00' in index


def test_the_bookers_must_each_be_an_address_or_a_domain(staff):
    data = {
        "name": "Initech AG",
        "street_address": "Ring 2",
        "postcode": "1010",
        "city": "Wien",
        "country": "AT",
        "vat_id": "",
        "billing_email": "ap@initech.example",
        "payment_terms_days": "14",
        "language": "de",
        "active": "on",
        "bookers": "anna@initech.example\nnot an address\n@initech\n",
    }
    refused = staff.post("/admin/business/companyaccount/add/", data, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 200
    assert "Not an e-mail address or @domain: not an address, @initech" in refused.content.decode()
    assert not CompanyAccount.objects.exists()
    data["bookers"] = " Anna@Initech.example \n\n@initech.example"
    assert staff.post("/admin/business/companyaccount/add/", data).status_code == 302
    account = CompanyAccount.objects.get()
    assert account.bookers == "anna@initech.example\n@initech.example"
    assert account.allows("bob@initech.example") and not account.allows("bob@other.example")
