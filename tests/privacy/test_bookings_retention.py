"""A booking's personal data and its documents (privacy/): with a frozen clock the traveller's name, contact,
addresses and notes disappear a year after the ride while its invoice and credit note stay readable and add
up; seven years after the end of the documents' year the booking goes with its documents and money, a
company's collective invoice with it; a hold keeps a booking whole; the admin's preview counts what the run
does."""

import io
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth.models import Group, User
from pypdf import PdfReader

from booking import history, links
from booking.models import Booking, BookingEvent
from config.roles import ensure_roles
from corporate.models import CompanyAccount
from invoicing import invoice_pdf
from invoicing.models import CollectiveInvoiceLine, CreditNote, Invoice, InvoiceYear
from payments import account_payments, collective_invoices, document_balance, payment_updates
from payments.models import AccountPayment, Payment, PaymentShare, Refund
from privacy import retention
from privacy.models import Hold, RetentionPolicy
from tests.corporate.conftest import acme, operator  # noqa: F401 (the company, the seller's details)
from tests.payments.conftest import refund_booking

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
RIDE = datetime(2026, 3, 10, 10, 0, tzinfo=VIENNA)
TRACES = ["Anna Berger", "anna@example.com", "+436601234567", "Philharmonikerstraße", "Stockerau", "OS 123"]


@pytest.fixture
def ridden(make_booking):
    """A ride at `pickup`, paid in cash after it and invoiced, 20 EUR of it given back by staff (a credit
    note), with a staff note and a history line naming the traveller's e-mail."""

    def make(pickup: datetime = RIDE, **fields) -> Booking:
        with time_machine.travel(pickup - timedelta(days=3), tick=False):
            booking = make_booking(
                name="Anna Berger",
                email="anna@example.com",
                phone="+436601234567",
                origin="Hotel Sacher, Philharmonikerstraße 4, 1010 Wien",
                destination="Hauptstraße 5, 2000 Stockerau",
                notes="A baby seat, please",
                flight_number="OS 123",
                pickup_at=pickup,
                **fields,
            )
            history.record(booking, history.Kind.NOTE, "Anna Berger asked for a second seat", actor="eva")
            said = history.said("Payment link e-mailed to {email}.", email=booking.email)
            history.record(booking, history.Kind.EMAIL, said, actor="eva (staff)")
            heard = "Call from ANNA BERGER; Anna Bergmann booked too"  # another traveller's name stays
            history.record(
                booking, history.Kind.CHANGE, heard, actor="traveller (Anna@Example.com, mailed link)"
            )
        with time_machine.travel(pickup + timedelta(hours=2), tick=False):
            payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="eva (staff)")
            refund_booking(booking.pk, 2000, reason="Late", actor="eva (staff)", manual=True)
        return booking

    return make


def done_at(moment: datetime) -> dict[str, int]:
    """The preview and the run at `moment`: they must agree; the bookings' categories with something done
    (a staff sign-in of the fixtures goes by its own period)."""
    with time_machine.travel(moment, tick=False):
        previewed = {due.category.key: due.count for due in retention.preview()}
        done = retention.remove()
    assert previewed == done
    return {key: count for key, count in done.items() if count and key in ("personal_data", "records")}


def invoice_text(document) -> str:
    return "\n".join(
        page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(document))).pages
    )


def test_a_rides_personal_data_goes_a_year_after_it_while_its_documents_stay_and_add_up(
    ridden, client, admin_client
):
    booking = ridden()
    assert done_at(RIDE + timedelta(days=364)) == {}
    assert done_at(datetime(2027, 3, 10, 10, 1, tzinfo=VIENNA)) == {"personal_data": 1}
    booking.refresh_from_db()
    assert (booking.name, booking.email, booking.phone, booking.notes, booking.flight_number) == ("",) * 5
    assert (booking.origin, booking.destination, booking.booking_data) == ("—", "—", {})
    assert booking.anonymised_at == datetime(2027, 3, 10, 10, 1, tzinfo=VIENNA)
    assert not booking.history.filter(kind=BookingEvent.Kind.NOTE).exists()
    told = booking.history.get(kind=BookingEvent.Kind.EMAIL)
    assert (told.text, told.params) == ("Payment link e-mailed to —.", {"email": "—"})
    heard = booking.history.get(kind=BookingEvent.Kind.CHANGE)
    assert (heard.text, heard.actor) == (
        "Call from —; Anna Bergmann booked too",
        "traveller (—, mailed link)",
    )
    assert told.actor == "eva (staff)"  # staff keep their name
    kept = " ".join(f"{event.text} {event.actor} {event.params}" for event in booking.history.all())
    assert not [trace for trace in TRACES if trace in kept]
    assert booking.status == "paid" and booking.amount_cents == 7400  # the ride and its money stay
    invoice, note = Invoice.objects.get(), CreditNote.objects.get()
    assert "Anna Berger" in invoice_text(invoice) and "Anna Berger" in invoice_text(note)  # kept by law
    balance = document_balance.balance(booking)
    assert balance.adds_up and (balance.invoiced_cents, balance.credited_cents) == (7400, 2000)
    page = client.get(links.manage_url(booking.reference).removeprefix(settings.PUBLIC_BASE_URL))
    assert page.status_code == 200 and not [trace for trace in TRACES if trace in page.content.decode()]
    assert done_at(datetime(2027, 6, 1, tzinfo=VIENNA)) == {}  # once
    staff_page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="de")
    said = "Die personenbezogenen Daten des Fahrgasts wurden am 10.03.2027 entfernt (Datenschutz)"
    assert said in staff_page.content.decode()


def test_a_hold_keeps_a_booking_whole_until_its_last_day(ridden):
    kept, other = ridden(), ridden()
    hold = Hold.objects.create(booking=kept, reason="The fare is disputed")
    assert done_at(datetime(2027, 4, 1, tzinfo=VIENNA)) == {"personal_data": 1}
    assert Booking.objects.get(pk=kept.pk).name == "Anna Berger"
    assert Booking.objects.get(pk=other.pk).name == ""
    Hold.objects.filter(pk=hold.pk).update(until=date(2027, 5, 31))
    assert done_at(datetime(2027, 5, 31, 23, 0, tzinfo=VIENNA)) == {}
    assert done_at(datetime(2027, 6, 1, 0, 30, tzinfo=VIENNA)) == {"personal_data": 1}
    assert Booking.objects.get(pk=kept.pk).name == ""


def on_account_in_march(make_booking, company: CompanyAccount) -> Invoice:
    """A ride on the company's account in March 2026, its collective invoice issued on 1 April and paid."""
    with time_machine.travel(RIDE - timedelta(days=3), tick=False):
        make_booking(
            company_account=company,
            payment_method="account",
            status="completed",
            pickup_at=RIDE,
            name="Bert Acme",
            email="bert@acme.example",
        )
    with time_machine.travel(datetime(2026, 4, 1, 8, 0, tzinfo=VIENNA), tick=False):
        invoice, _ = collective_invoices.issue(company, date(2026, 3, 1))
        account_payments.record(invoice.pk, amount_cents=invoice.gross_cents, received_on=date(2026, 4, 20))
    return invoice


def test_documents_go_seven_years_after_the_end_of_their_year_and_the_booking_with_them(
    ridden,
    make_booking,
    acme,  # noqa: F811 (the fixture imported above)
):
    gone = ridden()
    held = ridden()
    Hold.objects.create(booking=held, reason="A court case")
    # A New Year's Eve ride paid after midnight: its documents are of the next year.
    late = ridden(datetime(2026, 12, 31, 22, 0, tzinfo=VIENNA))
    collective = on_account_in_march(make_booking, acme)
    assert Invoice.objects.count() == 4 and CreditNote.objects.count() == 3
    assert done_at(datetime(2033, 12, 31, 23, 59, tzinfo=VIENNA)) == {"personal_data": 3}
    # Kept from 2026 to the end of 2033: the bookings of 2026 go, with the company's invoice of its ride.
    assert done_at(datetime(2034, 1, 1, 0, 1, tzinfo=VIENNA)) == {"records": 3}
    assert set(Booking.objects.values_list("pk", flat=True)) == {held.pk, late.pk}
    assert not Invoice.objects.filter(pk=collective.pk).exists() and not AccountPayment.objects.exists()
    assert set(Invoice.objects.values_list("booking", flat=True)) == {held.pk, late.pk}
    assert set(CreditNote.objects.values_list("booking", flat=True)) == {held.pk, late.pk}
    assert set(Refund.objects.values_list("booking", flat=True)) == {held.pk, late.pk}
    assert set(PaymentShare.objects.values_list("booking", flat=True)) == {held.pk, late.pk}
    assert Payment.objects.count() == 2 and not CollectiveInvoiceLine.objects.exists()
    assert InvoiceYear.objects.get(year=2026).last_number == 3  # the numbers issued stay counted
    assert gone.pk not in set(BookingEvent.objects.values_list("booking", flat=True))
    assert done_at(datetime(2035, 1, 1, 0, 1, tzinfo=VIENNA)) == {"records": 1}  # the documents of 2027
    assert list(Booking.objects.values_list("pk", flat=True)) == [held.pk]
    Hold.objects.update(until=date(2040, 1, 1))
    assert done_at(datetime(2040, 1, 2, tzinfo=VIENNA)) == {"personal_data": 1, "records": 1}
    assert not Booking.objects.exists() and not Payment.objects.exists() and not Invoice.objects.exists()


def test_a_hold_placed_while_a_run_is_under_way_keeps_what_the_run_had_found(ridden):
    booking = ridden()
    category = next(category for category in retention.CATEGORIES if category.key == "personal_data")
    now = datetime(2027, 4, 1, tzinfo=VIENNA)
    with time_machine.travel(now, tick=False):
        [found] = category.rows(RetentionPolicy(), now)
        assert list(found.values_list("pk", flat=True)) == [booking.pk]
        Hold.objects.create(booking=booking, reason="A claim came in")
        assert category.apply(found, now) == 0
    assert Booking.objects.get(pk=booking.pk).name == "Anna Berger"


def test_staff_place_a_hold_in_the_admin_and_see_the_periods_in_german(ridden, client):
    ensure_roles()
    accountant = User.objects.create_user("klara", password="pw", is_staff=True)
    accountant.groups.add(Group.objects.get(name="Accountant"))
    booking = ridden()
    client.force_login(accountant)
    form = {"booking": "CB-NOSUCH", "reason": "Beschwerde zum Fahrpreis", "until": ""}
    refused = client.post("/admin/privacy/hold/add/", form, HTTP_ACCEPT_LANGUAGE="de")
    assert "Keine Buchung hat diese Nummer." in refused.content.decode() and not Hold.objects.exists()
    added = client.post("/admin/privacy/hold/add/", {**form, "booking": booking.reference})
    assert added.status_code == 302
    hold = Hold.objects.get()
    assert (hold.booking, hold.created_by, hold.until) == (booking, accountant, None)
    listed = client.get("/admin/privacy/hold/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Beschwerde zum Fahrpreis" in listed and booking.reference in listed
    admin = User.objects.create_superuser("eva", password="pw")
    with time_machine.travel(datetime(2027, 4, 1, tzinfo=VIENNA), tick=False):
        client.force_login(admin)
        page = client.get("/admin/privacy/retentionpolicy/add/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<td>12 Monate nach der Fahrt</td><td>0</td>" in page  # held
    assert "<td>7 Jahre nach Ende des Ausstellungsjahres</td><td>0</td>" in page


@pytest.mark.parametrize(
    ("path", "months", "years"),
    [
        ("/en/privacy", "18 months after the ride", "10 years after the end of the year issued"),
        ("/de/privacy", "18 Monate nach der Fahrt", "10 Jahre nach Ende des Ausstellungsjahres"),
    ],
)
def test_the_privacy_page_names_the_bookings_periods(client, path, months, years):
    RetentionPolicy.objects.create(pk=1, personal_data_months=18, documents_years=10)
    page = client.get(path).content.decode()
    assert f"<td>{months}</td>" in page and f"<td>{years}</td>" in page


def test_the_documents_period_is_at_least_the_laws(admin_client):
    form = {field.name: field.default for field in RetentionPolicy._meta.fields if field.name != "id"}
    refused = admin_client.post("/admin/privacy/retentionpolicy/add/", {**form, "documents_years": 6})
    assert "greater than or equal to 7" in refused.content.decode()
    assert not RetentionPolicy.objects.exists()
