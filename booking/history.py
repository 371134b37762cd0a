"""A booking's history: what happened to it, when and by whom (the staff booking page shows it)."""

from booking.models import Booking, BookingEvent

Kind = BookingEvent.Kind


def record(booking: Booking, kind: str, text: str, *, actor: str) -> BookingEvent:
    return BookingEvent.objects.create(booking=booking, kind=kind, text=text, actor=actor[:150])


def staff(user) -> str:
    """How a staff user appears in the history."""
    return f"{user.get_username()} (staff)"
