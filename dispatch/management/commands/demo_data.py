"""A working day to try the back office on: drivers and vehicles with their papers (a chauffeur's licence and
a van's inspection expiring soon), and rides for today and the next days, paid, confirmed and waiting for a
driver. Development only: it refuses to run with debug off. Safe to re-run: it
makes only what is missing (a demo ride is known by its customer and pickup) and says what it made."""

import unicodedata
from datetime import datetime, time, timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.test.utils import override_settings
from django.utils import timezone

from apikit.errors import DomainError
from booking import history
from booking.checkout import BookingRequest, price_the_ride, store_booking
from booking.models import Booking, BookingChannel
from dispatch import assignment
from fleet.models import Driver, DriverPaper, DriverPaperKind, Vehicle, VehiclePaper, VehiclePaperKind
from payments import payment_updates
from pricing.models import VehicleClass
from quote_requests.models import QuoteRequest
from quote_requests.services import new_reference

DRIVERS = [
    ("Karl Huber", "+43 660 1112223", "karl@chauffeur.test", "de, en"),
    ("Mira Novak", "+43 664 4445556", "mira@chauffeur.test", "en, cs, de"),
    ("Stefan Berger", "+43 676 7778889", "stefan@chauffeur.test", "de, en, it"),
]
VEHICLES = [
    ("W-1001A", "executive", "Mercedes E-Class", 3, 3),
    ("W-1002B", "executive", "BMW 5 Series", 3, 3),
    ("W-2001C", "first", "Mercedes S-Class", 3, 3),
    ("W-3001D", "business-van", "Mercedes V-Class", 7, 7),
]
# (day from today, time, from, to, class, customer, phone, driver index or None, vehicle index)
RIDES = [
    (0, time(8, 30), "Hotel Sacher", "Flughafen Wien", "executive", "Anna Berger", "+43 660 1234567", 0, 0),
    (0, time(11, 0), "Flughafen Wien", "Hotel Imperial", "first", "James Porter", "+44 7911 123456", 1, 2),
    (
        0,
        time(14, 15),
        "Wien Hauptbahnhof",
        "Schönbrunn",
        "business-van",
        "Familie Gruber",
        "+43 699 5550101",
        None,
        3,
    ),
    (0, time(17, 45), "Hotel Bristol", "Schönbrunn", "executive", "Clara Weiss", "+43 664 5550202", 0, 0),
    (
        0,
        time(19, 30),
        "Stephansplatz",
        "Flughafen Wien",
        "executive",
        "Marco Rossi",
        "+39 333 5550303",
        None,
        1,
    ),
    (1, time(7, 0), "Hotel Imperial", "Flughafen Wien", "first", "James Porter", "+44 7911 123456", 1, 2),
    (
        1,
        time(9, 45),
        "Flughafen Wien",
        "Hotel Sacher",
        "executive",
        "Lena Fischer",
        "+49 151 55504040",
        None,
        0,
    ),
    (2, time(10, 0), "Hotel Sacher", "Bratislava", "business-van", "Tomáš Novák", "+421 905 555050", 2, 3),
    (
        4,
        time(16, 30),
        "Schönbrunn",
        "Flughafen Wien",
        "executive",
        "Sophie Martin",
        "+33 6 5550 6060",
        None,
        0,
    ),
]


def ascii_name(name: str) -> str:
    first = unicodedata.normalize("NFKD", name.split()[0].lower())
    return first.encode("ascii", "ignore").decode()


class Command(BaseCommand):
    help = "Create demo drivers, vehicles and rides for today and the next days (development only)."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("demo_data is for development: it refuses to run with DJANGO_DEBUG=false.")
        # Demo customers and drivers get no e-mail: a development console would fill with them.
        with (
            override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"),
            transaction.atomic(),
        ):
            drivers = [
                Driver.objects.get_or_create(
                    name=name, defaults={"phone": phone, "email": email, "languages": langs}
                )
                for name, phone, email, langs in DRIVERS
            ]
            vehicles = [self.vehicle(*spec) for spec in VEHICLES]
            with_papers(drivers, vehicles)
            rides = [self.ride(spec, [d for d, _ in drivers], [v for v, _ in vehicles]) for spec in RIDES]
            _group, asked = self.quote_request()
        made = {
            "driver": sum(created for _, created in drivers),
            "vehicle": sum(created for _, created in vehicles),
            "ride": sum(created for _, created in rides),
            "quote request": int(asked),
        }
        if any(made.values()):
            self.stdout.write(f"Made {counted(made)}.")
        else:
            there = {"driver": len(drivers), "vehicle": len(vehicles), "ride": len(rides), "quote request": 1}
            self.stdout.write(f"Nothing to make: the demo data is already there ({counted(there)}).")

    def quote_request(self) -> tuple[QuoteRequest, bool]:
        """A group no car takes, asked on the booking page, for staff to answer."""
        pickup = datetime.combine(
            timezone.localdate() + timedelta(days=6), time(9, 0), tzinfo=timezone.get_default_timezone()
        )
        return QuoteRequest.objects.get_or_create(
            email="events@example.com",
            defaults={
                "reference": new_reference(),
                "origin": "Hotel Sacher",
                "destination": "Salzburg Hauptbahnhof",
                "pickup_at": pickup,
                "passengers": 14,
                "luggage": 14,
                "details": "A board of 14 with luggage to Salzburg and back the next evening.",
                "reason": "vehicle_too_small",
                "name": "Katharina Lang",
                "phone": "+436641234500",
                "locale": "de",
                "channel": BookingChannel.WEBSITE,
            },
        )

    def vehicle(self, plate: str, code: str, model: str, seats: int, luggage: int) -> tuple[Vehicle, bool]:
        cls = VehicleClass.objects.get(code=code)
        fields = {"vehicle_class": cls, "model": model, "seats": seats, "luggage": luggage}
        return Vehicle.objects.get_or_create(plate=plate, defaults=fields)

    def ride(self, spec, drivers, vehicles) -> tuple[Booking, bool]:
        days, clock, origin, destination, code, name, phone, driver, vehicle = spec
        day = timezone.localdate() + timedelta(days=days)
        pickup = datetime.combine(day, clock, tzinfo=timezone.get_default_timezone())
        already = Booking.objects.filter(name=name, pickup_at=pickup, channel=BookingChannel.PHONE).first()
        if already is not None:
            return already, False
        ride = BookingRequest(
            origin=origin,
            destination=destination,
            pickup=pickup,
            vehicle_class=code,
            name=name,
            phone=phone,
            email=f"{ascii_name(name)}@example.com",
            locale="de" if phone.startswith("+43") else "en",
        )
        booking = store_booking(ride, price_the_ride(ride), channel=BookingChannel.PHONE)
        history.record(booking, history.Kind.CHANGE, history.said("Demo ride."), actor="demo_data")
        payment_updates.mark_paid(booking.pk, method="invoice", user=None, actor="demo_data")
        if driver is not None:
            chosen = {"driver_id": drivers[driver].pk, "vehicle_id": vehicles[vehicle].pk}
            try:
                assignment.assign(booking.pk, **chosen, actor="demo_data")
            except DomainError as busy:  # a ride entered by hand at that time: this one waits for a driver
                self.stdout.write(f"{booking.reference} is left for dispatch: {busy}")
        return booking, True


def with_papers(drivers: list[tuple[Driver, bool]], vehicles: list[tuple[Vehicle, bool]]) -> None:
    """Papers for the drivers and vehicles made now, valid for years but the last driver's chauffeur's
    licence and the last vehicle's inspection, which expire within the reminder's days."""
    today = timezone.localdate()
    for index, (driver, created) in enumerate(drivers):
        if created:
            soon = index == len(drivers) - 1
            taxi = today + timedelta(days=20 if soon else 900)
            DriverPaper.objects.create(driver=driver, kind=DriverPaperKind.TAXI_LICENCE, expires_on=taxi)
            DriverPaper.objects.create(
                driver=driver, kind=DriverPaperKind.DRIVING_LICENCE, number=f"F-{driver.pk:06}"
            )
    for index, (vehicle, created) in enumerate(vehicles):
        if created:
            soon = index == len(vehicles) - 1
            for kind in VehiclePaperKind:
                days = 12 if soon and kind == VehiclePaperKind.INSPECTION else 400
                VehiclePaper.objects.create(
                    vehicle=vehicle, kind=kind, expires_on=today + timedelta(days=days)
                )


def counted(made: dict[str, int]) -> str:
    """{"driver": 2, "ride": 1} → "2 drivers, 1 ride"; kinds with none made are left out."""
    return ", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in made.items() if n)
