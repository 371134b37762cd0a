"""Tokens as the OAuth flow issues them (oauth/), made directly: a client, a grant, and an access token
that acts for a traveller (or for an agency); and bookings stored as a checkout stores them. Shared by
tests/booking/test_traveller_tokens.py and tests/mcp_endpoint/test_list_bookings.py."""

from datetime import datetime, timedelta
from decimal import Decimal

from django.utils import timezone

from access import tokens
from access.models import ApiToken
from booking.checkout import new_reference
from booking.models import Booking, BookingChannel
from oauth.models import OAuthClient, OAuthGrant
from pricing.money import to_cents
from pricing.services import quote_price
from tests.payments import ledger_rows

BOTH = ("booking.read", "booking.write")
RESOURCE = "https://chauffeur.test/api/mcp"


def oauth_client(name: str = "Claude") -> OAuthClient:
    return OAuthClient.objects.create(
        client_id=f"https://{name.lower()}.example/oauth/client.json",
        registration=OAuthClient.Registration.METADATA_DOCUMENT,
        name=name,
        redirect_uris=[f"https://{name.lower()}.example/callback"],
    )


def grant(email: str = "", *, scopes=BOTH, client: OAuthClient | None = None) -> OAuthGrant:
    """A traveller's consent (with `email`) or an agency's, approved by staff (without)."""
    return OAuthGrant.objects.create(
        client=client or oauth_client(),
        subject=OAuthGrant.Subject.TRAVELLER if email else OAuthGrant.Subject.AGENCY,
        traveller_email=email,
        scopes=list(scopes),
        resource=RESOURCE,
    )


def access_token(
    acts_for: str = "", *, scopes=BOTH, of: OAuthGrant | None = None, name: str = "Claude for a traveller"
) -> tuple[ApiToken, dict[str, str]]:
    """An access token as the token endpoint issues it (an hour long), and its Authorization header."""
    token, plain = tokens.issue_token(name=name, scopes=list(scopes))
    ApiToken.objects.filter(pk=token.pk).update(
        acts_for=acts_for, grant=of, expires_at=timezone.now() + timedelta(hours=1)
    )
    token.refresh_from_db()
    return token, {"HTTP_AUTHORIZATION": f"Bearer {plain}"}


def stored_booking(
    email: str = "anna@example.com",
    *,
    pickup: datetime | None = None,
    token: ApiToken | None = None,
    **fields,
) -> Booking:
    """A booking of Hotel Sacher → the airport (74 EUR), its pickup three days ahead unless given."""
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8"))
    values = {
        "reference": new_reference(),
        "origin": "Hotel Sacher",
        "destination": "Flughafen Wien",
        "pickup_at": pickup if pickup is not None else timezone.now() + timedelta(days=3),
        "vehicle_class": quote.vehicle_class,
        "quote_record": quote.as_record(),
        "amount_cents": to_cents(quote.price),
        "booking_data": {},
        "name": "Anna Berger",
        "email": email,
        "api_token": token,
        "channel": BookingChannel.AGENT if token else BookingChannel.WEBSITE,
    }
    return ledger_rows.create_booking(**{**values, **fields})


def unchanged(booking: Booking) -> bool:
    """Whether nothing happened to the booking: its state, its history and its money."""
    fresh = Booking.objects.get(pk=booking.pk)
    return (
        fresh.status == booking.status
        and fresh.cancelled_at is None
        and not fresh.history.filter(kind="status").exists()
        and not fresh.refunds.exists()
    )
