"""What the service holds about a traveller, by their e-mail address: a copy as one JSON document (GDPR Art.
15, 20), and its erasure (Art. 17). Erasure anonymises every booking whose ride is over
(booking/personal_data.py), ends the assistants' access they gave, and says what stays and until when: a
ride still ahead (cancel it first), a booking kept under a hold, and the invoices and credit notes the law
keeps. Every answer is logged as a DataRequest, made by the traveller or by staff."""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db import transaction
from django.db.models import Max, QuerySet
from django.http import JsonResponse
from django.utils import timezone

from booking import selectors
from booking.models import Booking, BookingEvent, BookingStatus
from invoicing import documents as invoicing_documents
from invoicing.models import CreditNote, Invoice
from jobqueue import delivery
from oauth import grants
from oauth.models import OAuthGrant
from payments.models import Refund
from privacy import records
from privacy.models import DataRequest, retention_policy
from quote_requests.models import QuoteRequest
from webhooks import subscriptions

# A ride's day is over a day after its pickup: the wait, the billing after the ride and money still on its
# way need the traveller's details until then. Before that it is theirs to cancel, not data to erase; a
# checkout that expired or failed may still be paid meanwhile.
RIDE_OVER_AFTER = timedelta(days=1)


def ahead(booking: Booking, now: datetime) -> bool:
    if booking.status == BookingStatus.CANCELLED:
        return False
    return (booking.pickup_at or booking.created_at) + RIDE_OVER_AFTER > now


def bookings_of(email: str) -> QuerySet[Booking]:
    return Booking.objects.filter(email__iexact=email.strip())


def _offer(asked: QuoteRequest) -> dict | None:
    """Staff's offer as it was sent to them, and the booking made from it."""
    offer = asked.offer
    if offer is None:
        return None
    return {
        "lines": [{"label": line.label, "amount": str(line.amount)} for line in offer.lines],
        "price": str(offer.price),
        "validUntil": offer.valid_until.isoformat(),
        "booking": offer.booking_reference,
    }


def quote_requests_of(email: str) -> QuerySet[QuoteRequest]:
    return QuoteRequest.objects.filter(email__iexact=email.strip())


def copy_of(email: str, now: datetime | None = None) -> dict:
    """Everything held about the traveller with this address, as one JSON-ready document."""
    now = now or timezone.now()
    return {
        "email": email,
        "exportedAt": now.isoformat(timespec="seconds"),
        "bookings": [_booking(booking) for booking in bookings_of(email).order_by("created_at")],
        "quoteRequests": [
            {
                "reference": asked.reference,
                "status": asked.status,
                "askedAt": _when(asked.created_at),
                "pickup": _when(asked.pickup_at),
                "from": asked.origin,
                "to": asked.destination,
                "passengers": asked.passengers,
                "luggage": asked.luggage,
                "details": asked.details,
                "name": asked.name,
                "phone": asked.phone,
                "offer": _offer(asked),
            }
            for asked in quote_requests_of(email).order_by("created_at")
        ],
        "assistants": [
            {
                "name": grant.client.name,
                "scopes": grant.scopes,
                "allowedAt": _when(grant.created_at),
                "endedAt": _when(grant.revoked_at),
            }
            for grant in OAuthGrant.objects.filter(traveller_email__iexact=email).select_related("client")
        ],
        "requests": [
            {
                "kind": request.kind,
                "receivedAt": _when(request.received_at),
                "answeredAt": _when(request.answered_at),
            }
            for request in DataRequest.objects.filter(email__iexact=email).order_by("received_at")
        ],
    }


def _when(moment: datetime | None) -> str | None:
    return timezone.localtime(moment).isoformat(timespec="seconds") if moment else None


def _booking(booking: Booking) -> dict:
    documents = invoicing_documents.of_booking(booking)  # a way back's: its trip's invoice too
    return {
        "reference": booking.reference,
        "status": booking.status,
        "bookedAt": _when(booking.created_at),
        "pickup": _when(booking.pickup_at),
        "from": booking.origin,
        "to": booking.destination,
        "stops": [
            {"address": stop.get("address", ""), "waitMinutes": stop.get("wait_minutes", 0)}
            for stop in booking.stops or ()
        ],
        "vehicleClass": booking.vehicle_class,
        "name": booking.name,
        "email": booking.email,
        "phone": booking.phone,
        "language": booking.locale,
        "notes": booking.notes,
        "flightNumber": booking.flight_number,
        "textMessages": booking.text_messages,
        "billingAddress": booking.billing_address,
        "billingVatId": booking.billing_vat_id,
        "price": {"amountCents": booking.amount_cents, "currency": booking.currency},
        "companyAccount": booking.company_account.name if booking.company_account else None,
        "submitted": booking.booking_data,
        "personalDataRemovedAt": _when(booking.anonymised_at),
        # Staff's internal notes are their working notes, not the traveller's record.
        "history": [
            {"at": _when(event.at), "kind": event.kind, "text": event.text}
            for event in booking.history.exclude(kind=BookingEvent.Kind.NOTE)
        ],
        # A payment may carry several bookings (a company's transfer): its share of this one.
        "payments": [
            {
                "kind": share.payment.kind,
                "state": share.payment.state,
                "amountCents": share.amount_cents,
                "receivedAt": _when(share.payment.received_at),
            }
            for share in booking.payment_shares.select_related("payment").order_by("payment__created_at")
        ],
        "refunds": [
            {"amountCents": refund.amount_cents, "status": refund.status, "at": _when(refund.created_at)}
            for refund in Refund.objects.filter(booking=booking)
        ],
        "documents": [
            {
                "number": document.number,
                "issuedAt": _when(document.issued_at),
                "grossCents": document.gross_cents,
                "printed": document.content,
            }
            for document in documents
        ],
    }


@dataclass
class Erasure:
    erased: list[str] = field(default_factory=list)  # references anonymised now
    ahead: list[str] = field(default_factory=list)  # rides still to come: cancel them first
    held: list[str] = field(default_factory=list)  # kept under a hold (a dispute)
    documents_until: date | None = None  # the last day invoices and credit notes naming them are kept
    assistants_ended: int = 0
    quote_requests: int = 0  # deleted now: a request is the traveller's words alone

    def outcome(self) -> str:
        """For the request's log, in English as staff's records are."""
        parts = [f"anonymised: {', '.join(self.erased) or 'none'}"]
        if self.ahead:
            parts.append(f"rides still ahead, kept: {', '.join(self.ahead)}")
        if self.held:
            parts.append(f"kept under a hold: {', '.join(self.held)}")
        if self.documents_until:
            parts.append(f"invoices and credit notes kept until {self.documents_until.isoformat()}")
        parts.append(f"assistants' access ended: {self.assistants_ended}")
        parts.append(f"quote requests deleted: {self.quote_requests}")
        return "; ".join(parts)


def plan(email: str, now: datetime | None = None) -> Erasure:
    """What an erasure now would do, and what it would leave."""
    now = now or timezone.now()
    planned = Erasure(
        documents_until=documents_kept_until(email), quote_requests=quote_requests_of(email).count()
    )
    free = set(records.not_held(bookings_of(email), now).values_list("pk", flat=True))
    for booking in bookings_of(email).filter(anonymised_at__isnull=True).order_by("created_at"):
        if ahead(booking, now):
            planned.ahead.append(booking.reference)
        elif booking.pk not in free:
            planned.held.append(booking.reference)
        else:
            planned.erased.append(booking.reference)
    return planned


def documents_kept_until(email: str) -> date | None:
    """The last day the newest invoice or credit note naming the traveller is kept (BAO §132)."""
    lasts = [
        documents.filter(booking__email__iexact=email).aggregate(last=Max("issued_at"))["last"]
        for documents in (Invoice.objects.all(), CreditNote.objects.all())
    ]
    newest = max((last for last in lasts if last), default=None)
    if newest is None:
        return None
    return date(timezone.localtime(newest).year + retention_policy().documents_years, 12, 31)


def erase(
    email: str, *, channel: str, user=None, request: DataRequest | None = None
) -> tuple[DataRequest, Erasure]:
    """Erase what may go now and log the answer (on `request`, when staff answer one received otherwise)."""
    now = timezone.now()
    done = plan(email, now)
    planned, done.erased = done.erased, []
    phones = set(bookings_of(email).exclude(phone="").values_list("phone", flat=True))
    for reference in planned:
        erased = _anonymised_unless_held(reference, now)
        if erased is not False:  # False: a request alongside this one erased it first
            (done.erased if erased else done.held).append(reference)
    done.quote_requests = quote_requests_of(email).delete()[0]
    for assistant in grants.allowed_assistants(email=email):
        done.assistants_ended += bool(grants.end_assistant(email=email, client_pk=assistant.client_pk))
    ended = OAuthGrant.objects.filter(traveller_email__iexact=email.strip())
    for grant_pk in ended.values_list("pk", flat=True):
        grants.forget_traveller(grant_pk)  # ended now or before: none keeps the address
    subscriptions.forget_traveller(email)  # their assistants' webhook endpoints, named by their address
    if not done.ahead and not done.held:  # their records keep a ride's messages from going out twice
        for address in (email, *phones):
            delivery.forget_recipient(address)
    return _answered(request, email, DataRequest.Kind.ERASURE, channel, user, done.outcome()), done


def _anonymised_unless_held(reference: str, now: datetime) -> bool | None:
    """The booking locked first, then asked again: a hold placed since the plan keeps it (None)."""
    with transaction.atomic():
        pk = Booking.objects.values_list("pk", flat=True).get(reference=reference)
        booking = selectors.locked_booking(pk)
        if not records.not_held(Booking.objects.filter(pk=booking.pk), now).exists():
            return None
        return records.anonymise(booking.pk, now)


def download(copy: dict, file_name: str) -> JsonResponse:
    """The copy as the file the traveller, or staff for them, download."""
    return JsonResponse(
        copy,
        json_dumps_params={"ensure_ascii": False, "indent": 2},
        headers={"Content-Disposition": f'attachment; filename="{file_name}"'},
    )


def copied(
    email: str, *, channel: str, user=None, request: DataRequest | None = None
) -> tuple[DataRequest, dict]:
    """The copy, with the answer logged."""
    copy = copy_of(email)
    outcome = f"copy of {len(copy['bookings'])} bookings handed out"
    return _answered(request, email, DataRequest.Kind.ACCESS, channel, user, outcome), copy


def _answered(request, email, kind, channel, user, outcome) -> DataRequest:
    now = timezone.now()
    if request is None:
        return DataRequest.objects.create(
            email=email,
            kind=kind,
            channel=channel,
            received_at=now,
            answered_at=now,
            answered_by=user,
            outcome=outcome,
        )
    DataRequest.objects.filter(pk=request.pk).update(answered_at=now, answered_by=user, outcome=outcome)
    request.refresh_from_db()
    return request
