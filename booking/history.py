"""A booking's history: what happened to it, when and by whom (the staff booking page shows it).

An entry is stored as its English message with {named} fields plus the fields' values (`said`), and worded
in the reader's language when shown (`wording`): German staff read German whatever language the entry was
written in. Values that read differently by language are typed: `eur(cents)`, `state(code)`,
`refund_state(code)`, `vehicle_class(code)`, `moment(datetime)`; a list of `said(...)` parts reads as one
sentence joined by "; ". A refund's state and a price difference's reason are worded by payments
(booking/money_shown.py). Staff notes are free text and stay as typed, and so does an entry that has only a
text and no message."""

import re
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy

from booking import presentation
from booking.models import Booking, BookingEvent, BookingStatus, RideState
from booking.money_shown import money_shown
from pricing.money import CURRENCY, from_cents
from sitekit import l10n

Kind = BookingEvent.Kind


@dataclass(frozen=True)
class Said:
    """An English message with {named} fields (in the German catalogue), and its values as JSON."""

    message: str
    params: dict = field(default_factory=dict, hash=False)

    def __str__(self) -> str:
        """The message in English, with values as stored text writes them ("42.00 EUR")."""
        with translation.override("en"):
            return self.message.format(**{key: _written(value) for key, value in self.params.items()})

    def shown(self) -> str:
        """The message in the active language ("42,00 €" in German)."""
        return gettext(self.message).format(**{key: _shown(value) for key, value in self.params.items()})


def said(message: str, **params) -> Said:
    """`message` is an English text (extracted for translation by `make messages`, keyword `said`)."""
    return Said(message, {key: _encoded(value) for key, value in params.items()})


def record(booking: Booking, kind: str, text: str | Said, *, actor: str) -> BookingEvent:
    """`text` is `said(...)`; a plain string (a staff note) is kept as typed."""
    if isinstance(text, Said):
        return BookingEvent.objects.create(
            booking=booking,
            kind=kind,
            text=str(text),
            message=text.message,
            params=text.params,
            actor=actor[:150],
        )
    return BookingEvent.objects.create(booking=booking, kind=kind, text=text, actor=actor[:150])


def wording(event: BookingEvent) -> str:
    """The entry in the active language; an entry without a message, or one whose message does not fit its
    values, shows its stored text."""
    if not event.message:
        return event.text
    try:
        return Said(event.message, event.params or {}).shown()
    except (KeyError, IndexError, ValueError, TypeError):
        return event.text


def staff(user) -> str:
    """How a staff user appears in the history."""
    return f"{user.get_username()} (staff)"


# Who acted is stored in English (staff(), lifecycle.actor(), payment_updates.provider_actor(), the
# commands); staff read it in their language.
ACTORS = (
    (re.compile(r"(?P<name>.+) \(staff\)"), gettext_lazy("{name} (staff)")),
    (re.compile(r"(?P<name>.+) \(chauffeur\)"), gettext_lazy("{name} (chauffeur)")),
    (re.compile(r"payment provider \((?P<name>.+)\)"), gettext_lazy("payment provider ({name})")),
    (re.compile(r"API token “(?P<name>.+)”"), gettext_lazy("API token “{name}”")),
    (re.compile(r"customer"), gettext_lazy("customer")),
    (re.compile(r"customer \(manage page\)"), gettext_lazy("customer (manage page)")),
    (re.compile(r"reconcile_payments \(no payment page\)"), gettext_lazy("payment check (no payment page)")),
    (re.compile(r"billing after the ride"), gettext_lazy("billing after the ride")),
    (re.compile(r"flight data"), gettext_lazy("flight data")),
)


def actor_shown(actor: str) -> str:
    for pattern, words in ACTORS:
        if found := pattern.fullmatch(actor):
            return str(words).format(**found.groupdict())
    return actor  # a name or a command, as stored


# --- typed values --------------------------------------------------------------------------------------


def eur(cents: int) -> dict:
    return {"eur": str(from_cents(cents))}


def state(code: str) -> dict:
    return {"state": str(code)}


def chauffeur(driver) -> str:
    """How a chauffeur moving their ride on from the job page appears in the history."""
    return f"{driver.name} (chauffeur)"


def ride_state(code: str) -> dict:
    return {"ride_state": str(code)}


def refund_state(code: str) -> dict:
    return {"refund_state": str(code)}


def vehicle_class(code: str) -> dict:
    """Stored as its code; read as the class's name in the tariff tables ("First Class")."""
    return {"vehicle_class": str(code)}


def surcharge_reason(code: str) -> dict:
    return {"surcharge_reason": str(code)}


def moment(value: datetime | None) -> dict:
    return {"at": value.isoformat() if value else None}


def _encoded(value):
    if isinstance(value, Said):
        return {"said": value.message, "params": value.params}
    if isinstance(value, list | tuple):
        return [_encoded(item) for item in value]
    return value


def _written(value) -> str:
    return _word(value, shown=False)


def _shown(value) -> str:
    return _word(value, shown=True)


def _word(value, *, shown: bool) -> str:
    if isinstance(value, list):
        return "; ".join(_word(item, shown=shown) for item in value)
    if not isinstance(value, dict):
        return str(value)
    if "said" in value:
        part = Said(value["said"], value.get("params", {}))
        return part.shown() if shown else str(part)
    if "eur" in value:
        return l10n.money(value["eur"]) if shown else f"{value['eur']} {CURRENCY}"
    if "state" in value:
        return str(BookingStatus(value["state"]).label)
    if "ride_state" in value:
        return str(RideState(value["ride_state"]).label)
    if "refund_state" in value:
        return money_shown().refund_state(value["refund_state"]) if shown else value["refund_state"]
    if "vehicle_class" in value:
        return presentation.vehicle_name(value["vehicle_class"]) if shown else value["vehicle_class"]
    if "surcharge_reason" in value:
        return money_shown().surcharge_reason(value["surcharge_reason"])
    if "at" in value:
        if value["at"] is None:
            return "—" if shown else "none"
        at = datetime.fromisoformat(value["at"])
        return l10n.day_time(at) if shown else timezone.localtime(at).strftime("%d.%m.%Y %H:%M")
    return str(value)
