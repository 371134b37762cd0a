"""Rides across the border on the invoice (docs/operations/invoices.md "Rides across the border"):
the share of the route in Austria, and, when staff chose it in the operator profile, Austrian VAT on that
share only (UStG §3a (10): passenger transport is taxed where it is driven, pro rata by distance). The
choice is written into the invoice's snapshot at issue: changing it later changes no issued invoice."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from booking.models import Booking
from operator_profile.models import PROFILE_ID, OperatorProfile
from pricing.money import from_cents, to_cent, to_cents, vat_of
from pricing.quote import Quote

WHOLE, AUSTRIA_ONLY = "whole", "austria_only"  # OperatorProfile.foreign_route_vat


@dataclass(frozen=True)
class VatSplit:
    austria_gross: Decimal  # the Austrian share of the price, with Austrian VAT in it
    austria_net: Decimal
    vat: Decimal
    abroad: Decimal  # the share driven abroad: no Austrian VAT

    @property
    def net(self) -> Decimal:
        return self.austria_net + self.abroad


def split(gross: Decimal, *, share: Decimal, vat_rate: Decimal) -> VatSplit:
    """The price split by the share in Austria, to the cent; the parts always add up to `gross`."""
    austria_gross = to_cent(gross * share)
    austria_net = to_cent(austria_gross / (1 + vat_rate))
    return VatSplit(
        austria_gross=austria_gross,
        austria_net=austria_net,
        vat=austria_gross - austria_net,
        abroad=gross - austria_gross,
    )


def section(booking: Booking, quote: Quote) -> dict | None:
    """The snapshot's "cross_border" entry, with the operator's VAT setting of now; None for a ride all in
    Austria."""
    share = booking.austria_share
    if share is None or share >= 1:
        return None
    profile = OperatorProfile.objects.filter(id=PROFILE_ID).first()
    setting = profile.foreign_route_vat if profile else WHOLE
    distance = booking.distance_km or Decimal(0)
    entry = {
        "share": str(share),
        "km_austria": str((distance * share).quantize(Decimal(1), ROUND_HALF_UP)),
        "km_total": str(distance.quantize(Decimal(1), ROUND_HALF_UP)),
        "vat_setting": setting,
    }
    if setting == AUSTRIA_ONLY:
        parts = split(quote.price, share=share, vat_rate=quote.vat_rate)
        entry.update(
            austria_gross=str(parts.austria_gross),
            austria_net=str(parts.austria_net),
            abroad=str(parts.abroad),
        )
    return entry


def net_and_vat(entry: dict | None, quote: Quote) -> tuple[Decimal, Decimal]:
    """What the invoice states as net and VAT: the quote's, or the split's under "austria_only"."""
    if entry is None or entry["vat_setting"] != AUSTRIA_ONLY:
        return quote.net, quote.vat
    austria_net, abroad = Decimal(entry["austria_net"]), Decimal(entry["abroad"])
    return austria_net + abroad, Decimal(entry["austria_gross"]) - austria_net


def portion(entry: dict | None, gross_cents: int, rate: Decimal) -> tuple[dict | None, int, int]:
    """A part of a ride's price taxed as the ride's invoice was (a supplement, a credit note): its
    "cross_border" entry, net and VAT in cents. Under "austria_only" the part is split by the ride's share."""
    if entry is None or entry["vat_setting"] != AUSTRIA_ONLY:
        vat = vat_of(gross_cents, rate)
        return entry, gross_cents - vat, vat
    parts = split(from_cents(gross_cents), share=Decimal(entry["share"]), vat_rate=rate)
    part = {
        **entry,
        "austria_gross": str(parts.austria_gross),
        "austria_net": str(parts.austria_net),
        "abroad": str(parts.abroad),
    }
    return part, to_cents(parts.net), to_cents(parts.vat)
