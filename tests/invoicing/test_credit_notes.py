"""Credit notes and supplementary invoices (docs/operations/invoices.md): every refund that is done
gets a credit note correcting the invoice whose money it gives back, every price difference paid gets a
supplementary invoice, both in the transaction that moves the money, and a booking's documents always add
up to what was paid: invoiced − credited == received − refunded. Stripe is faked at the HTTP boundary."""

import io
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
import responses
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.db import connection, connections, transaction
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from booking import links
from booking.models import Booking
from dispatch import changes
from invoicing import invoice_pdf, invoices
from invoicing.models import CreditNote, CreditNoteYear, Invoice, IssuedInvoiceError
from operator_profile.models import OperatorProfile
from payments import cancellation, document_balance, refunds, surcharges
from payments.models import Refund, Surcharge
from payments.providers.base import PaymentError
from pricing.money import vat_of
from tests.payments.conftest import refund_booking
from tests.payments.fake_stripe import FakeStripe
from tests.payments.ledger_rows import own_intent, paid_through_checkout
from tests.payments.stripe_events import API, deliver, event_payload, use_stripe

pytestmark = pytest.mark.django_db
STAFF = "eva (staff)"
YEAR = timezone.localtime().year


@pytest.fixture(autouse=True)
def operator(db):
    OperatorProfile.objects.filter(id=1).update(
        legal_name="Wiener Chauffeur GmbH",
        street_address="Kärntner Ring 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
    )


@pytest.fixture
def stripe(settings):
    use_stripe(settings)
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield FakeStripe().install(mock)


def invoiced(booking: Booking) -> Booking:
    """Its ride invoice, as the payment's transaction issues it."""
    with transaction.atomic():
        invoices.issue(booking)
    booking.refresh_from_db()
    return booking


@pytest.fixture
def paid(make_booking, stripe):
    """Paid 74 EUR through Stripe and invoiced; pickup four days ahead (cancelling is free until a day before)."""

    def make(**fields) -> Booking:
        pickup = (timezone.localtime() + timedelta(days=4)).replace(
            hour=11, minute=0, second=0, microsecond=0
        )
        values = {
            "status": "paid",
            "paid_at": timezone.now(),
            "payment_provider": "stripe",
            "email": "anna@example.com",
            "name": "Anna Berger",
            "distance_km": Decimal("21.8"),
            "duration_s": 1455,
            "in_zone_a": True,
            "pickup_at": pickup,
        }
        booking = make_booking(**{**values, **fields})
        session, intent = stripe.paid_booking(booking.reference, booking.amount_cents)
        paid_through_checkout(booking, session, intent)
        return invoiced(booking)

    return make


@pytest.fixture
def by_invoice(make_booking):
    def make(**fields) -> Booking:
        values = {
            "status": "paid",
            "paid_at": timezone.now(),
            "payment_method": "invoice",
            "payment_provider": "none",
            "email": "anna@example.com",
            "name": "Anna Berger",
            "distance_km": Decimal("21.8"),
            "pickup_at": timezone.now() + timedelta(days=4),
        }
        return invoiced(make_booking(**{**values, **fields}))

    return make


def pdf_text(document) -> str:
    reader = PdfReader(io.BytesIO(invoice_pdf.render(document)))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return re.sub(r"[ \n\xa0]+", " ", text)  # a long line wraps where the width says; 37,00 € keeps together


def adds_up(booking: Booking) -> document_balance.Balance:
    booking.refresh_from_db()
    balance = document_balance.balance(booking)
    assert balance.adds_up, balance
    return balance


def today() -> str:
    return timezone.localtime().strftime("%d.%m.%Y")


def refund_page(client, booking, amount: str, **more):
    """The staff refund page: the amount, then the confirmation as the page renders it."""
    url = f"/admin/booking/booking/{booking.pk}/refund/"
    first = client.post(url, {"reason": "", "amount": amount, **more}).content.decode()
    form = first[first.index('id="confirm-refund-form"') :]
    fields = dict(
        re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form[: form.index("</form>")])
    )
    return client.post(url, fields)


# --- the staff refund page ---------------------------------------------------------------------------------


def test_a_full_refund_through_stripe_gets_a_credit_note_correcting_the_ride_invoice(
    admin_client, paid, stripe
):
    booking = paid(reference="CB-CRED01")
    ride = Invoice.objects.get()
    assert refund_page(admin_client, booking, "74.00").status_code == 302
    note = CreditNote.objects.get()
    assert (note.number, note.invoice, note.booking, note.refund) == (
        f"G-{YEAR}-000001",
        ride,
        booking,
        Refund.objects.get(),
    )
    assert (note.reason, note.gross_cents, note.net_cents, note.vat_cents) == ("refund", 7400, 6727, 673)
    assert stripe.refunded == {own_intent(booking): 7400}
    text = pdf_text(note)
    for printed in (
        f"Credit note G-{YEAR}-000001",
        f"Corrects invoice {ride.number} of",
        "Booking reference: CB-CRED01",
        "Reason: refund",
        "Refund €74.00",
        "Net amount €67.27",
        "VAT 10 % €6.73",
        "Total credited €74.00",
        "Wiener Chauffeur GmbH",
        "VAT id (UID): ATU12345678",
        "Anna Berger",
    ):
        assert printed in text, printed
    balance = adds_up(booking)
    assert (balance.invoiced_cents, balance.credited_cents, balance.received_cents) == (7400, 7400, 7400)


def test_a_partial_refund_of_a_german_booking_prints_a_german_credit_note(admin_client, paid):
    booking = paid(reference="CB-CRED02", locale="de")
    ride = Invoice.objects.get()
    refund_page(admin_client, booking, "20.00")
    note = CreditNote.objects.get()
    assert (note.gross_cents, note.vat_cents, note.net_cents, note.language) == (2000, 182, 1818, "de")
    assert note.file_name == f"Gutschrift-G-{YEAR}-000001.pdf"
    text = pdf_text(note)
    for printed in (
        f"Gutschrift G-{YEAR}-000001",
        f"Korrigiert Rechnung {ride.number} vom",
        "Buchungsnummer: CB-CRED02",
        "Grund: Erstattung",
        "Nettobetrag 18,18 €",
        "USt 10 % 1,82 €",
        "Gutschrift gesamt 20,00 €",
        "UID-Nummer: ATU12345678",
    ):
        assert printed in text, printed
    adds_up(booking)
    refund_page(admin_client, booking, "54.00")  # the rest: a second credit note, the next number
    assert list(CreditNote.objects.order_by("sequence").values_list("number", "gross_cents")) == [
        (f"G-{YEAR}-000001", 2000),
        (f"G-{YEAR}-000002", 5400),
    ]
    assert adds_up(booking).kept_cents == 0


def test_a_refund_paid_back_by_staff_gets_its_credit_note_at_once(admin_client, by_invoice):
    booking = by_invoice()
    refund_page(admin_client, booking, "10.00", manual="on")
    refund = Refund.objects.get()
    assert (refund.method, refund.status) == ("manual", "succeeded")
    assert CreditNote.objects.get().refund == refund
    adds_up(booking)


def test_an_owed_refund_gets_its_credit_note_when_staff_confirm_it_paid_back(by_invoice):
    booking = by_invoice()
    [owed] = refund_booking(booking.pk, 1500, reason="", actor=STAFF)
    assert owed.status == "pending" and not CreditNote.objects.exists()  # nothing went back yet
    refunds.confirm_paid_back(owed.pk, actor=STAFF)
    note = CreditNote.objects.get()
    assert (note.refund, note.gross_cents) == (owed, 1500)
    adds_up(booking)


def test_a_refund_stripe_refuses_issues_nothing_and_uses_no_number(paid, stripe):
    booking = paid()
    stripe.refusing_refunds = True
    with pytest.raises(PaymentError):
        refund_booking(booking.pk, 7400, reason="", actor=STAFF)
    assert not Refund.objects.exists() and not CreditNote.objects.exists()
    assert not CreditNoteYear.objects.exists()  # the number drawn went back with the transaction
    adds_up(booking)


def stripe_refund(refund_id: str, amount: int, status: str, intent: str, reference: str) -> dict:
    return {
        "id": refund_id,
        "object": "refund",
        "amount": amount,
        "currency": "eur",
        "payment_intent": intent,
        "status": status,
        "metadata": {"reference": reference},
    }


@responses.activate
def test_a_pending_refund_that_fails_gets_none_and_one_that_succeeds_gets_one(client, settings, by_invoice):
    use_stripe(settings)
    booking = by_invoice(payment_method="checkout", payment_provider="stripe", payment_intent_id="pi_7")
    ref = booking.reference
    responses.post(f"{API}/v1/refunds", json=stripe_refund("re_1", 3000, "pending", "pi_7", ref))
    responses.post(f"{API}/v1/refunds", json=stripe_refund("re_2", 3000, "pending", "pi_7", ref))
    refund_booking(booking.pk, 3000, reason="", actor=STAFF)
    assert not CreditNote.objects.exists()  # pending: no money went back yet
    deliver(client, event_payload("refund.updated", stripe_refund("re_1", 3000, "failed", "pi_7", ref), "e1"))
    assert not CreditNote.objects.exists() and not CreditNoteYear.objects.exists()
    adds_up(booking)

    refund_booking(booking.pk, 3000, reason="", actor=STAFF)
    done = stripe_refund("re_2", 3000, "succeeded", "pi_7", ref)
    for event_id in ("e2", "e2", "e3"):  # replayed, and news saying the same again
        assert deliver(client, event_payload("refund.updated", done, event_id)).status_code == 200
    note = CreditNote.objects.get()
    assert (note.refund.provider_refund_id, note.gross_cents, note.number) == (
        "re_2",
        3000,
        f"G-{YEAR}-000001",
    )
    adds_up(booking)


@responses.activate
def test_a_refund_made_in_stripes_dashboard_gets_its_credit_note_from_the_news(client, settings, by_invoice):
    use_stripe(settings)
    booking = by_invoice(payment_method="checkout", payment_provider="stripe", payment_intent_id="pi_8")
    news = stripe_refund("re_9", 1000, "succeeded", "pi_8", booking.reference)
    deliver(client, event_payload("refund.created", news, "e9"))
    assert CreditNote.objects.get().refund.provider_refund_id == "re_9"
    adds_up(booking)


# --- cancellations -----------------------------------------------------------------------------------------


def test_a_traveller_cancelling_late_gets_a_credit_note_for_what_the_fee_does_not_keep(paid, stripe):
    booking = paid(reference="CB-CRED03", pickup_at=timezone.now() + timedelta(hours=5))
    page = links.manage_url(booking.reference).removeprefix("https://chauffeur.test")
    assert Client().post(page, {"action": "cancel"}).status_code == 200
    booking.refresh_from_db()
    assert (booking.status, booking.cancellation_fee_cents) == ("cancelled", 3700)
    note = CreditNote.objects.get()
    assert (note.reason, note.gross_cents, note.invoice.kind) == ("cancellation", 3700, "ride")
    text = pdf_text(note)
    assert "Reason: cancellation" in text and "Total credited €37.00" in text
    assert "The cancellation fee of €37.00 is kept and stays invoiced." in text
    balance = adds_up(booking)
    assert balance.documented_cents == 3700 == stripe.net()  # the fee stays invoiced and received


def test_a_german_traveller_cancelling_late_reads_it_in_german(paid):
    booking = paid(locale="de", pickup_at=timezone.now() + timedelta(hours=5))
    cancellation.cancel(booking.pk, actor="the customer")
    text = pdf_text(CreditNote.objects.get())
    assert "Grund: Stornierung" in text and "Gutschrift gesamt 37,00 €" in text
    assert "Die Stornogebühr von 37,00 € wird einbehalten und bleibt verrechnet." in text
    adds_up(booking)


def test_staff_cancelling_refunds_all_with_a_cancellation_credit_note(admin_client, paid):
    booking = paid()
    assert admin_client.post(f"/admin/booking/booking/{booking.pk}/do/cancel/").status_code == 302
    note = CreditNote.objects.get()
    assert (note.reason, note.gross_cents) == ("cancellation", 7400)
    assert "is kept" not in pdf_text(note)  # free: no fee to print
    assert adds_up(booking).documented_cents == 0


# --- staff change the ride after payment -------------------------------------------------------------------


def change(booking, vehicle_class, capture, *, through_provider=True):
    with capture(execute=True):
        return changes.change_ride(
            booking.pk,
            pickup=booking.pickup_at,
            vehicle_class=vehicle_class,
            through_provider=through_provider,
            actor=STAFF,
        )


def test_a_price_change_down_gets_a_price_change_credit_note(paid, django_capture_on_commit_callbacks):
    booking = paid(vehicle_class="first")
    made = change(booking, "executive", django_capture_on_commit_callbacks)
    assert made.difference_cents < 0
    note = CreditNote.objects.get()
    assert (note.reason, note.gross_cents) == ("price_change", -made.difference_cents)
    assert "Price change of the ride: refund of the difference" in pdf_text(note)
    adds_up(booking)


def test_a_price_change_up_paid_online_gets_a_supplementary_invoice_and_back_down_a_credit_note_on_it(
    client, paid, stripe, django_capture_on_commit_callbacks
):
    booking = paid(reference="CB-CRED04")
    ride = Invoice.objects.get()
    up = change(booking, "first", django_capture_on_commit_callbacks)
    surcharge = Surcharge.objects.get()
    assert Invoice.objects.count() == 1 and adds_up(booking)  # asked for, not paid: nothing to invoice
    stripe.pay(client, surcharge.provider_session_id)
    extra = Invoice.objects.get(kind="supplementary")
    assert (extra.number, extra.surcharge, extra.gross_cents) == (
        f"{YEAR}-000002",
        surcharge,
        up.difference_cents,
    )
    assert extra.vat_cents == vat_of(up.difference_cents, Decimal("0.10"))
    text = pdf_text(extra)
    for printed in (
        f"Invoice {YEAR}-000002",
        f"Supplementary to invoice {ride.number} of",
        "Booking reference: CB-CRED04",
        "Price difference after a change of the ride €42.00",
        "Total amount €42.00",
        "VAT 10 % €3.82",
    ):
        assert printed in text, printed
    adds_up(booking)

    # back down: the difference goes back to the payment it came with
    change(booking, "executive", django_capture_on_commit_callbacks)
    note = CreditNote.objects.get()
    assert (note.invoice, note.reason, note.gross_cents) == (extra, "price_change", 4200)
    assert f"Corrects invoice {YEAR}-000002" in pdf_text(note)
    adds_up(booking)


def test_a_price_change_up_collected_by_staff_gets_a_supplementary_invoice(
    by_invoice, django_capture_on_commit_callbacks
):
    booking = by_invoice(locale="de", in_zone_a=True, duration_s=1455)
    change(booking, "first", django_capture_on_commit_callbacks, through_provider=False)
    extra = Invoice.objects.get(kind="supplementary")
    assert extra.surcharge.method == "manual" and extra.language == "de"
    text = pdf_text(extra)
    assert "Preisdifferenz nach einer Änderung der Fahrt 42,00 €" in text and "Nachtrag zur Rechnung" in text
    adds_up(booking)


def test_money_through_a_withdrawn_link_goes_back_without_documents(
    client, paid, stripe, django_capture_on_commit_callbacks
):
    booking = paid()
    change(booking, "first", django_capture_on_commit_callbacks)
    opened = Surcharge.objects.get()
    with django_capture_on_commit_callbacks(execute=False):
        cancellation.cancel(booking.pk, actor="the customer")  # withdraws the link (its page stays open here)
    cancelled_note = CreditNote.objects.get()
    stripe.pay(client, opened.provider_session_id)  # paid before Stripe closed the page
    opened.refresh_from_db()
    assert opened.status == "waived" and opened.paid_at is not None
    back = Refund.objects.get(payment__payment_intent_id=opened.payment_intent_id)
    assert back.status == "succeeded" and back.amount_cents == opened.amount_cents
    assert not Invoice.objects.filter(kind="supplementary").exists()  # never owed, never invoiced
    assert list(CreditNote.objects.all()) == [cancelled_note]  # so nothing to correct either
    adds_up(booking)


# --- bookings without individual documents -----------------------------------------------------------------


def test_a_booking_paid_before_invoices_gets_no_credit_note(make_booking, caplog):
    booking = make_booking(status="paid", paid_at=timezone.now(), payment_method="invoice")
    refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    assert Refund.objects.get().status == "succeeded" and not CreditNote.objects.exists()
    assert "has no invoice" in caplog.text
    assert not document_balance.balance(booking).adds_up  # its payment was never invoiced: staff see it


def test_a_company_account_booking_gets_no_individual_documents(by_invoice):
    booking = by_invoice(payment_method="account")
    Invoice.objects.all()  # (its ride invoice here only stands for a collective one)
    refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    with transaction.atomic():
        owed = surcharges.record_paid(
            Booking.objects.select_for_update().get(pk=booking.pk), 500, actor=STAFF
        )
    assert not CreditNote.objects.exists() and not Invoice.objects.filter(surcharge=owed).exists()


# --- numbers, immutability ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_parallel_refunds_draw_consecutive_credit_note_numbers(by_invoice):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises its writers; the race is PostgreSQL's (CI's second run)")
    bookings = [by_invoice() for _ in range(10)]

    def give_back(pk):
        try:
            return refund_booking(pk, 1000, reason="", actor=STAFF, manual=True)[0].status
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=10) as pool:
        assert list(pool.map(give_back, [booking.pk for booking in bookings])) == ["succeeded"] * 10
    assert sorted(CreditNote.objects.values_list("number", flat=True)) == [
        f"G-{YEAR}-{n:06d}" for n in range(1, 11)
    ]
    assert CreditNoteYear.objects.get(year=YEAR).last_number == 10
    assert set(CreditNote.objects.values_list("booking", flat=True)) == {booking.pk for booking in bookings}


def test_an_issued_credit_note_refuses_to_change(by_invoice):
    booking = by_invoice()
    refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    note = CreditNote.objects.get()
    note.gross_cents = 1
    with pytest.raises(IssuedInvoiceError):
        note.save()
    with pytest.raises(IssuedInvoiceError):
        CreditNote.objects.update(gross_cents=1)
    assert CreditNote.objects.get().gross_cents == 1000


# --- where they show ---------------------------------------------------------------------------------------


def test_the_traveller_gets_the_credit_note_by_mail(by_invoice, django_capture_on_commit_callbacks):
    booking = by_invoice(locale="de")
    with django_capture_on_commit_callbacks(execute=True):
        refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    note = CreditNote.objects.get()
    [message] = [m for m in mail.outbox if m.subject.startswith("Gutschrift")]
    assert (
        message.to == ["anna@example.com"]
        and message.subject == f"Gutschrift zu Ihrer Buchung {booking.reference}"
    )
    assert f"Gutschrift {note.number} zur Rechnung {note.invoice.number}" in message.body
    [(name, content, kind)] = message.attachments
    assert (name, kind, content) == (note.file_name, "application/pdf", invoice_pdf.render(note))


def test_the_manage_page_lists_every_document_and_serves_only_its_own(by_invoice, make_booking):
    booking = by_invoice()
    with transaction.atomic():
        surcharges.record_paid(Booking.objects.select_for_update().get(pk=booking.pk), 500, actor=STAFF)
    refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    other = by_invoice()
    browser = Client()
    page = browser.get(
        links.manage_url(booking.reference).removeprefix("https://chauffeur.test")
    ).content.decode()
    found = [link.replace("&amp;", "&") for link in re.findall(r'class="document-link" href="([^"]+)"', page)]
    extra, note = Invoice.objects.get(kind="supplementary"), CreditNote.objects.get()
    assert (
        f"Supplementary invoice {extra.number} (PDF)" in page and f"Credit note {note.number} (PDF)" in page
    )
    served = [browser.get(link) for link in found]
    assert [response.content for response in served] == [invoice_pdf.render(extra), invoice_pdf.render(note)]
    foreign = found[0].replace(extra.number, Invoice.objects.get(booking=other).number)
    assert browser.get(foreign).status_code == 404  # another booking's invoice, by this booking's link
    assert browser.get(found[0].replace(booking.reference, other.reference)).status_code == 404


def test_the_admin_shows_credit_notes_supplementary_invoices_and_the_balance(admin_client, by_invoice):
    booking = by_invoice()
    with transaction.atomic():
        surcharges.record_paid(Booking.objects.select_for_update().get(pk=booking.pk), 500, actor=STAFF)
    refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    note = CreditNote.objects.get()
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert "Supplementary invoice" in page and note.number in page and "adds up" in page
    listing = admin_client.get("/admin/invoicing/creditnote/").content.decode()
    assert note.number in listing and note.invoice.number in listing
    download = admin_client.get(f"/admin/invoicing/creditnote/{note.pk}/pdf/")
    assert download.status_code == 200 and download.content == invoice_pdf.render(note)
    assert admin_client.get(f"/admin/invoicing/creditnote/{note.pk}/delete/").status_code == 403


def test_staff_without_the_permission_get_no_credit_note(client, by_invoice):
    booking = by_invoice()
    refund_booking(booking.pk, 1000, reason="", actor=STAFF, manual=True)
    user = User.objects.create_user("otto", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename="view_booking"))
    client.force_login(user)
    note = CreditNote.objects.get()
    assert client.get(f"/admin/invoicing/creditnote/{note.pk}/pdf/").status_code == 403


def test_a_ride_invoice_prints_no_supplement_line(by_invoice):
    """A ride invoice carries no supplement line: its bytes are what they were before credit notes."""
    by_invoice()
    ride = Invoice.objects.get()
    assert "supplements" not in ride.content and "Supplementary" not in pdf_text(ride)
    assert datetime.fromisoformat(ride.content["issued_at"])  # drawn from the snapshot as before


def test_the_cancellation_mail_carries_its_credit_note_and_no_second_mail_goes(
    paid, django_capture_on_commit_callbacks
):
    booking = paid(locale="de", pickup_at=timezone.now() + timedelta(hours=5))
    with django_capture_on_commit_callbacks(execute=True):
        cancellation.cancel(booking.pk, actor="the customer")
    note = CreditNote.objects.get()
    customer = [message for message in mail.outbox if message.to == ["anna@example.com"]]
    assert [message.subject for message in customer] == [
        f"Ihre Chauffeur-Buchung {booking.reference} ist storniert"
    ]
    assert customer[0].attachments == [(note.file_name, invoice_pdf.render(note), "application/pdf")]
