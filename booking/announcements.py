"""What agents and partners are told when a booking moves: the webhook event (webhooks/events.py), with what
it says of the booking, to the endpoints that hear of it (staff's, and those of the tokens that open it:
webhooks/owners.py). Called inside the transaction that makes the move, so a move rolled back tells
nobody. What the data holds is the API's booking in brief: the reference, the state and the pickup; a
receiver reads the rest with GET /api/v1/bookings/{reference}."""

from django.utils import timezone

from booking.models import Booking
from webhooks import owners, publishing


def announce(booking: Booking, event_type: str, **details) -> None:
    data = {
        "reference": booking.reference,
        "status": booking.status,
        "pickupDatetime": timezone.localtime(booking.pickup_at).isoformat() if booking.pickup_at else None,
        "vehicleClass": booking.vehicle_class,
        **details,
    }
    publishing.publish(
        event_type,
        subject=booking.reference,
        data=data,
        audience=owners.of_booking(email=booking.email, api_token=booking.api_token),
    )
