"""The dispatch forms of the staff booking page (assign, change the ride) and of the phone booking: each
validates one action and calls one service."""

import re
from collections.abc import Mapping
from datetime import date
from types import MappingProxyType
from typing import TypeVar

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from booking import presentation, ride_stops
from booking.billing import MAX_ADDRESS_LENGTH, normalised_vat_id, valid_vat_id
from booking.checkout import MAX_NOTES_LENGTH, BookingRequest
from booking.models import BOOKING_TYPES, Booking
from booking.ride_stops import MAX_STOP_ADDRESS, Stop
from corporate.models import CompanyAccount
from dispatch import assignment, changes
from dispatch.phone import PhonePayment
from dispatch.windows import ride_window
from fleet.models import Driver, Vehicle
from fleet.papers import lapsed
from payments.admin.forms import EuroField
from pricing import services as pricing
from pricing.models import Tour, VehicleClass
from pricing.quote import (
    MAX_HOURLY_HOURS,
    MAX_LUGGAGE,
    MAX_PASSENGERS,
    MAX_REASON_LENGTH,
    MAX_STOP_WAIT_MINUTES,
    MAX_STOPS,
    MIN_HOURLY_HOURS,
    ExtraChoice,
    PriceByHand,
    price_by_hand_of,
)
from sitekit import l10n
from sitekit.admin_labels import LabelledSplitDateTime
from sitekit.phones import PhoneNumberField
from sitekit.validators import one_line

_Field = TypeVar("_Field", bound=forms.Field)


def field_of(form: forms.BaseForm, name: str, kind: type[_Field]) -> _Field:
    """The form's own copy of a declared field, as the kind it was declared."""
    field = form.fields[name]
    if not isinstance(field, kind):
        raise TypeError(f"{name} is a {type(field).__name__}, not a {kind.__name__}")
    return field


THROUGH_PROVIDER = [
    ("1", _("charged or refunded through the payment provider")),
    ("", _("settled by staff (cash, invoice, card terminal)")),
]

# The admin's date and time fields (calendar, clock), in Vienna's format (23.11.2026 14:15), each labelled.
STAFF_DATETIME = LabelledSplitDateTime()


class PaperedChoiceField(forms.ModelChoiceField):
    """A chauffeur or car, named with the first of its papers no longer valid on the ride's day: staff see
    it before choosing one that assigning refuses (dispatch/papers.py)."""

    ride_day: date | None = None

    def label_from_instance(self, obj) -> str:
        ended = lapsed(obj, self.ride_day) if self.ride_day else []
        if not ended:
            return str(obj)
        paper, until = ended[0]
        return str(_("{holder} (the {paper} is valid until {until})")).format(
            holder=obj, paper=paper, until=l10n.day(until)
        )


class VehicleChoiceField(PaperedChoiceField):
    """A car, also named with the booked extras it does not carry (assigning it is refused)."""

    booking: Booking | None = None

    def label_from_instance(self, obj) -> str:
        label = super().label_from_instance(obj)
        short = assignment.lacking(self.booking, obj) if self.booking else []
        if not short:
            return label
        extras = ", ".join(presentation.extra_label(params) for params, _carried, _booked in short)
        return str(_("{vehicle} (without the booked {extras})")).format(vehicle=label, extras=extras)


class AssignForm(forms.Form):
    driver = PaperedChoiceField(Driver.objects.none(), label=_("Driver"))
    vehicle = VehicleChoiceField(Vehicle.objects.none(), label=_("Vehicle"))

    def __init__(self, *args, booking: Booking, **kwargs):
        super().__init__(*args, **kwargs)
        window = ride_window(booking)
        drivers = field_of(self, "driver", PaperedChoiceField)
        drivers.queryset = Driver.objects.filter(active=True).prefetch_related("papers")
        # Only vehicles of the booked class are offered; the service refuses any other all the same.
        vehicles = field_of(self, "vehicle", VehicleChoiceField)
        vehicles.queryset = (
            Vehicle.objects.filter(active=True, vehicle_class__code=booking.vehicle_class)
            .select_related("vehicle_class")
            .prefetch_related("papers", "equipment__extra")
        )
        vehicles.booking = booking
        for field in (drivers, vehicles):
            field.ride_day = timezone.localtime(window.end).date() if window else None
        self.initial = {"driver": booking.driver_id, "vehicle": booking.vehicle_id}


# What staff choose beyond the lead time and the tariff, each on purpose: the fields of the change form and
# the phone form, offered by permission (StaffChoices.offer).
def short_notice_field() -> forms.BooleanField:
    return forms.BooleanField(
        label=_("Short notice: accept a pickup inside the lead time (a driver is free)"), required=False
    )


def past_ride_field() -> forms.BooleanField:
    return forms.BooleanField(
        label=_("Record a past ride: the pickup time has passed (a ride already driven)"),
        required=False,
        help_text=_("Never onto a company's month whose collective invoice is issued."),
    )


def price_field() -> EuroField:
    return EuroField(
        label=_("Price set by hand (EUR)"),
        required=False,
        help_text=_("Empty: the tariff's price. A negotiated or corrected price, printed with its reason."),
    )


def price_reason_field() -> forms.CharField:
    return forms.CharField(
        label=_("Reason for the price"),
        max_length=MAX_REASON_LENGTH,
        required=False,
        validators=[one_line],
        help_text=_("Printed on the invoice, e.g. “Agreed fixed price for the congress”."),
    )


def offer_extras(
    form: forms.Form, german: bool, booked: Mapping[str, int] = MappingProxyType({})
) -> list[str]:
    """A count per extra offered, after the luggage; the quote checks it against the class (a count `booked`
    before a maximum was lowered stays possible). The codes."""
    codes = []
    for listed in pricing.offered_extras():
        offer = listed.offer
        form.fields[f"extra_{offer.code}"] = forms.IntegerField(
            label=offer.name_de if german else offer.name_en,
            help_text=presentation.extra_price(offer),
            min_value=0,
            max_value=max(*listed.maxima.values(), booked.get(offer.code, 0)),
            required=False,
        )
        codes.append(offer.code)
    order = list(form.fields)
    after = order.index("luggage") + 1
    extras = [f"extra_{code}" for code in codes]
    form.order_fields([*order[:after], *extras, *(name for name in order[after:] if name not in extras)])
    return codes


def stops_field() -> forms.CharField:
    return forms.CharField(
        label=_("Stops on the way"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        help_text=_("One per line, in order; the wait there in minutes after a bar: Stephansdom | 20"),
    )


def stops_written(text: str) -> tuple[Stop, ...]:
    """Stops as staff type them, a line each: "Stephansdom | 20" (the wait in minutes after a bar)."""
    stops = []
    for line in text.splitlines():
        address, _bar, wait = line.partition("|")
        address, wait = " ".join(address.split()), wait.strip() or "0"
        if not address and wait == "0":
            continue  # an empty line
        if not address or len(address) > MAX_STOP_ADDRESS:
            raise forms.ValidationError(
                _("Give each stop its address (at most {most} characters).").format(most=MAX_STOP_ADDRESS)
            )
        if not re.fullmatch(r"[0-9]{1,3}", wait) or int(wait) > MAX_STOP_WAIT_MINUTES:
            raise forms.ValidationError(
                _("The wait at {address} is whole minutes, 0 to {most}.").format(
                    address=address, most=MAX_STOP_WAIT_MINUTES
                )
            )
        stops.append(Stop(address, int(wait)))
    if len(stops) > MAX_STOPS:
        raise forms.ValidationError(_("At most {most} stops on the way.").format(most=MAX_STOPS))
    return tuple(stops)


def passengers_field() -> forms.IntegerField:
    return forms.IntegerField(label=_("Passengers"), min_value=1, max_value=MAX_PASSENGERS, required=False)


def luggage_field() -> forms.IntegerField:
    return forms.IntegerField(label=_("Suitcases"), min_value=0, max_value=MAX_LUGGAGE, required=False)


class StaffChoices(forms.Form):
    """The staff-choice fields, offered as a user's permissions allow (after the form's own), read back."""

    short_notice = short_notice_field()
    past_ride = past_ride_field()
    price = price_field()
    price_reason = price_reason_field()

    def offer(self, *, may_set_price: bool, may_record_past: bool) -> None:
        for name in ("short_notice", "past_ride", "price", "price_reason"):
            self.fields[name] = self.fields.pop(name)  # last, after the form's own fields
        if not may_set_price:
            del self.fields["price"], self.fields["price_reason"]
        if not may_record_past:
            del self.fields["past_ride"]

    def clean_staff_choices(self, data: dict) -> None:
        if data.get("price") is not None and not (data.get("price_reason") or "").strip():
            self.add_error("price_reason", _("Give the reason for the price set by hand."))
        if data.get("price") is None and (data.get("price_reason") or "").strip():
            self.add_error("price", _("Enter the price the reason is for, or clear the reason."))

    def price_by_hand(self) -> PriceByHand | None:
        data = self.cleaned_data
        return PriceByHand(data["price"], data["price_reason"]) if data.get("price") is not None else None


class ChangeForm(StaffChoices):
    """The ride's pickup and class, its addresses, stops, party and extras; a field not sent keeps what the
    booking has (`wanted`)."""

    pickup = forms.SplitDateTimeField(label=_("Pickup (Vienna time)"), widget=STAFF_DATETIME)
    vehicle_class = forms.ChoiceField(label=_("Vehicle class"))
    origin = forms.CharField(label=_("From"), max_length=500, required=False, validators=[one_line])
    destination = forms.CharField(label=_("To"), max_length=500, required=False, validators=[one_line])
    stops = stops_field()
    passengers = passengers_field()
    luggage = luggage_field()
    # the booking as the page showed it: a change made meanwhile (an agent's, another user's) is not undone
    seen = forms.CharField(widget=forms.HiddenInput, required=False)
    through_provider = forms.TypedChoiceField(
        label=_("A price difference is"),
        choices=THROUGH_PROVIDER,
        coerce=bool,
        initial="1",
        widget=forms.RadioSelect,
        required=False,
    )

    def __init__(
        self,
        *args,
        booking: Booking,
        may_settle: bool = True,
        may_set_price: bool = False,
        may_record_past: bool = False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        field_of(self, "vehicle_class", forms.ChoiceField).choices = [
            (item.code, item.display_name) for item in VehicleClass.objects.filter(active=True)
        ]
        if not may_settle:  # settling by staff records money taken or handed over: a permission of its own
            field_of(self, "through_provider", forms.ChoiceField).choices = THROUGH_PROVIDER[:1]
        self.booking = booking
        booked = {extra.code: extra.quantity for extra in booking.quote.extras}
        self.extra_codes = offer_extras(self, get_language() == "de", booked=booked)
        self.offer(may_set_price=may_set_price, may_record_past=may_record_past)
        by_hand = price_by_hand_of(booking.quote)  # kept until staff change or clear it
        self.initial = {
            "pickup": booking.pickup_at,
            "vehicle_class": booking.vehicle_class,
            "origin": booking.origin,
            "destination": booking.destination,
            "stops": "\n".join(
                f"{stop.address} | {stop.wait_minutes}" if stop.wait_minutes else stop.address
                for stop in ride_stops.of(booking)
            ),
            "passengers": booking.passengers,
            "luggage": booking.luggage,
            **{f"extra_{code}": quantity for code, quantity in booked.items()},
            "seen": changes.version(booking),
            "through_provider": "1",
            "price": str(by_hand.amount) if by_hand else "",
            "price_reason": by_hand.reason if by_hand else "",
        }

    @property
    def extra_fields(self) -> list[forms.BoundField]:
        return [self[f"extra_{code}"] for code in self.extra_codes]

    def clean_stops(self) -> tuple[Stop, ...]:
        return stops_written(self.cleaned_data["stops"])

    def clean(self):
        data = super().clean()
        self.clean_staff_choices(data)
        return data

    def wanted(self) -> dict:
        """rerouting.wanted's keywords: what the form sent, None for what it did not (an address left empty
        stays too). An extra no longer offered, so without a field, stays as booked."""
        data, sent = self.cleaned_data, self.data
        kept = tuple(extra for extra in self.booking.quote.extras if extra.code not in self.extra_codes)
        counted = tuple(
            ExtraChoice(code, data[f"extra_{code}"]) for code in self.extra_codes if data.get(f"extra_{code}")
        )
        extras_sent = any(f"extra_{code}" in sent for code in self.extra_codes)
        return {
            "origin": data.get("origin") or None,
            "destination": data.get("destination") or None,
            "stops": data["stops"] if "stops" in sent else None,
            "passengers": data.get("passengers"),
            "luggage": data.get("luggage"),
            "extras": (*kept, *counted) if extras_sent else None,
        }


class PhoneBookingForm(StaffChoices):
    """A booking staff take by phone; its field names are the domain's, so a refusal lands on its field."""

    # Name and places are printed on the invoice, each on a line of its own.
    origin = forms.CharField(label=_("From"), max_length=500, validators=[one_line])
    destination = forms.CharField(label=_("To"), max_length=500, validators=[one_line])
    stops = stops_field()
    pickup = forms.SplitDateTimeField(label=_("Pickup (Vienna time)"), widget=STAFF_DATETIME)
    vehicle_class = forms.ChoiceField(label=_("Vehicle class"))
    booking_type = forms.ChoiceField(label=_("Booked"), choices=BOOKING_TYPES, initial="distance")
    duration_hours = forms.DecimalField(
        label=_("Hours (hourly hire)"), min_value=MIN_HOURLY_HOURS, max_value=MAX_HOURLY_HOURS, required=False
    )
    tour_name = forms.ChoiceField(label=_("Tour"), required=False)
    passengers = passengers_field()
    luggage = luggage_field()
    name = forms.CharField(label=_("Customer's name"), max_length=200, validators=[one_line])
    phone = PhoneNumberField(label=_("Phone"))
    email = forms.EmailField(label=_("E-mail"), required=False)
    locale = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES, initial="de")
    flight_number = forms.CharField(label=_("Flight"), max_length=20, required=False, validators=[one_line])
    notes = forms.CharField(
        label=_("Notes for the driver"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=MAX_NOTES_LENGTH,
    )
    payment = forms.ChoiceField(label=_("Payment"), choices=PhonePayment.choices, widget=forms.RadioSelect)
    company_account = forms.ModelChoiceField(
        label=_("Company account"),
        queryset=CompanyAccount.objects.filter(active=True),
        required=False,
        help_text=_("For payment on account: any active account (you vouch for the traveller)."),
    )
    billing_address = forms.CharField(
        label=_("Billing address (optional)"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=MAX_ADDRESS_LENGTH,
    )
    billing_vat_id = forms.CharField(
        label=_("Customer's VAT id (UID, optional)"), max_length=20, required=False
    )

    def __init__(
        self,
        *args,
        may_record_payment: bool = True,
        may_set_price: bool = False,
        may_record_past: bool = False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.offer(may_set_price=may_set_price, may_record_past=may_record_past)
        field_of(self, "vehicle_class", forms.ChoiceField).choices = [
            (item.code, item.display_name) for item in VehicleClass.objects.filter(active=True)
        ]
        if not may_record_payment:  # invoice and cash mark the booking paid: a money permission of its own
            field_of(self, "payment", forms.ChoiceField).choices = [
                (PhonePayment.LINK.value, PhonePayment.LINK.label)
            ]
        german = get_language() == "de"
        field_of(self, "tour_name", forms.ChoiceField).choices = [("", _("no tour"))] + [
            (tour.slug, tour.name_de if german else tour.name_en) for tour in Tour.objects.filter(active=True)
        ]
        self.extra_codes = offer_extras(self, german)

    def clean_stops(self) -> tuple[Stop, ...]:
        return stops_written(self.cleaned_data["stops"])

    def clean(self):
        data = super().clean()
        if data.get("booking_type") == "hourly" and not data.get("duration_hours"):
            self.add_error("duration_hours", _("An hourly hire needs its hours."))
        if data.get("payment") == PhonePayment.ACCOUNT and not data.get("company_account"):
            self.add_error("company_account", _("Choose the company account the ride goes on."))
        self.clean_staff_choices(data)
        return data

    def clean_billing_vat_id(self) -> str:
        value = self.cleaned_data["billing_vat_id"]
        if value and not valid_vat_id(value):
            raise forms.ValidationError(_("Enter a VAT id (UID) of an EU country, e.g. ATU12345678."))
        return normalised_vat_id(value)

    def ride(self) -> BookingRequest:
        data = self.cleaned_data
        fields = (
            "origin",
            "destination",
            "pickup",
            "vehicle_class",
            "booking_type",
            "tour_name",
            "name",
            "phone",
            "email",
            "locale",
            "flight_number",
            "notes",
        )
        submitted: dict[str, object] = {name: str(data[name]) for name in fields if data.get(name)}
        hours = data["duration_hours"] if data["booking_type"] == "hourly" else None
        extras = tuple(
            ExtraChoice(code, data[f"extra_{code}"]) for code in self.extra_codes if data.get(f"extra_{code}")
        )
        submitted.update(
            {name: data[name] for name in ("passengers", "luggage") if data.get(name) is not None}
        )
        if extras:
            submitted["extras"] = [f"{extra.code}:{extra.quantity}" for extra in extras]
        stops = data.get("stops", ())
        if stops:
            submitted["stops"] = [
                {"address": stop.address, "waitMinutes": stop.wait_minutes} for stop in stops
            ]
        return BookingRequest(
            **{name: data[name] for name in fields},
            billing_address=data.get("billing_address", ""),
            billing_vat_id=data.get("billing_vat_id", ""),
            duration_hours=hours,
            passengers=data.get("passengers"),
            luggage=data.get("luggage"),
            extras=extras,
            stops=stops,
            submitted={"phone booking": submitted},
        )
