"""What the admin pages give assistive technology and the browser, read from the HTML without a browser
(tests/browser/test_admin_pages.py runs axe-core and watches the console in Chromium): every input has a
name of its own, and the date and time pickers get their scripts in the order they need."""

import re

import pytest
from django.utils.text import capfirst

from pricing.models import DistanceBand, Tariff, Tour

pytestmark = pytest.mark.django_db


def tags(page: str, id_pattern: str) -> list[str]:
    return re.findall(rf"<(?:input|select|textarea)\b[^>]*\bid=\"{id_pattern}\"[^>]*>", page)


def test_the_phone_bookings_date_and_time_have_labels_and_the_pickers_their_scripts(admin_client):
    page = admin_client.get("/admin/booking/booking/add/").content.decode()
    assert '<label for="id_pickup_0">' in page and '<label for="id_pickup_1">' in page
    scripts = re.findall(r'<script src="([^"]+)"', page)
    order = [
        "/admin/jsi18n/",
        "admin/js/core.js",
        "admin/js/calendar.js",
        "admin/js/admin/DateTimeShortcuts.js",
    ]
    found = [next(i for i, src in enumerate(scripts) if src.endswith(name)) for name in order]
    assert found == sorted(found)  # quickElement (core.js) exists before the calendar uses it


def test_the_notes_field_of_the_phone_booking_has_its_label(admin_client):
    page = admin_client.get("/admin/booking/booking/add/").content.decode()
    assert re.search(r'<label for="id_notes"', page)


def test_a_tokens_expiry_date_and_time_have_labels(admin_client):
    page = admin_client.get("/admin/access/apitoken/add/").content.decode()
    assert '<label for="id_expires_at_0">' in page and '<label for="id_expires_at_1">' in page


def test_every_input_of_the_tariffs_distance_bands_is_named(admin_client):
    tariff = Tariff.objects.get(vehicle_class__code="executive")
    page = admin_client.get(f"/admin/pricing/tariff/{tariff.pk}/change/").content.decode()
    inputs = [tag for tag in tags(page, r"id_bands-\d+-[a-z_A-Z]+") if 'type="hidden"' not in tag]
    assert len(inputs) >= 4  # from, to, rate, delete of the first band at least
    assert [tag for tag in inputs if "aria-label=" not in tag] == []
    (from_km,) = tags(page, "id_bands-0-from_km")
    assert f'aria-label="{capfirst(DistanceBand._meta.get_field("from_km").verbose_name)}"' in from_km
    assert '<th class="original"></th>' not in page  # no empty column header


def test_the_first_tour_price_rows_class_is_named_too(admin_client):
    """The admin's related-object wrapper shares its attrs with the class-wide select: naming the wrapper's
    left the first row's select unnamed."""
    tour = Tour.objects.filter(prices__isnull=False).first()
    page = admin_client.get(f"/admin/pricing/tour/{tour.pk}/change/").content.decode()
    (first,) = tags(page, "id_prices-0-vehicle_class")
    assert "aria-label=" in first


def test_an_editable_lists_inputs_are_named(admin_client):
    page = admin_client.get("/admin/pricing/vehicleclass/").content.decode()
    inputs = [tag for tag in tags(page, r"id_form-\d+-[a-z_]+") if 'type="hidden"' not in tag]
    assert inputs and [tag for tag in inputs if "aria-label=" not in tag] == []
