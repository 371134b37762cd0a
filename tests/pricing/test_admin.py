import pytest

from pricing.models import DistanceBand, Tariff, Tour, VehicleClass
from tests.admin_forms import change_form_data, inline_prefix

pytestmark = pytest.mark.django_db

PRICE = "/api/v1/price"


def executive_price(client, **params) -> float:
    return client.get(PRICE, {"vehicleClass": "executive", "distanceKm": "20", **params}).json()["priceEur"]


def tariff_form(admin_client, code="executive"):
    tariff = Tariff.objects.get(vehicle_class__code=code)
    url = f"/admin/pricing/tariff/{tariff.pk}/change/"
    return url, change_form_data(admin_client.get(url))


def test_staff_change_a_tariff_and_the_next_quote_uses_it(
    admin_client, client, django_capture_on_commit_callbacks
):
    assert executive_price(client) == 70.0  # this process now holds the old snapshot
    url, data = tariff_form(admin_client)
    data["base_fare"] = "35.00"
    data[inline_prefix(data, "from_km", "0.0") + "-rate_per_km"] = "2.50"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["errors"] if response.context else response
    assert executive_price(client) == 85.0  # 35 + 20 × 2.50


def test_staff_change_a_tour_price_and_the_next_quote_uses_it(
    admin_client, client, django_capture_on_commit_callbacks
):
    tour = Tour.objects.get(slug="vienna-city-tour")
    assert executive_price(client, tourSlug=tour.slug) == 249.0
    url = f"/admin/pricing/tour/{tour.pk}/change/"
    data = change_form_data(admin_client.get(url))
    executive = str(VehicleClass.objects.get(code="executive").pk)
    data[inline_prefix(data, "vehicle_class", executive) + "-price"] = "259.00"
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302
    assert executive_price(client, tourSlug=tour.slug) == 259.0


def test_staff_deactivate_a_class_from_the_list(admin_client, client, django_capture_on_commit_callbacks):
    assert client.get(PRICE, {"vehicleClass": "first", "distanceKm": "20"}).status_code == 200
    url = f"/admin/pricing/vehicleclass/{VehicleClass.objects.get(code='first').pk}/change/"
    data = change_form_data(admin_client.get(url))
    del data["active"]
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302
    assert client.get(PRICE, {"vehicleClass": "first", "distanceKm": "20"}).status_code == 400


def band_edit(data, from_km, field, value):
    data[inline_prefix(data, "from_km", from_km) + "-" + field] = value


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: band_edit(d, "50.0", "from_km", "60"), "Gap between 50.0 km and 60"),
        (lambda d: band_edit(d, "50.0", "from_km", "40"), "overlap"),
        (lambda d: band_edit(d, "0.0", "from_km", "1"), "must start at 0 km"),
        (lambda d: band_edit(d, "200.0", "to_km", "500"), "must be open-ended"),
        (lambda d: band_edit(d, "0.0", "to_km", ""), "Only the last band may be open-ended"),
        (lambda d: band_edit(d, "50.0", "to_km", "40"), "must end after it starts"),
        (lambda d: band_edit(d, "0.0", "rate_per_km", "-1"), "greater than or equal to 0"),
        (lambda d: d.update({"base_fare": "-5"}), "greater than or equal to 0"),
        (lambda d: d.update({"minimum_fare": "abc"}), "Enter a number"),
        (lambda d: d.update({"rounding_step": "0"}), "greater than or equal to 0.01"),
        (lambda d: d.update({"vat_rate": "1.5"}), "less than or equal to 1"),
    ],
)
def test_an_invalid_tariff_cannot_be_saved(
    admin_client, client, django_capture_on_commit_callbacks, edit, message
):
    before = list(DistanceBand.objects.values_list("tariff_id", "from_km", "to_km", "rate_per_km"))
    tariff_before = Tariff.objects.filter(vehicle_class__code="executive").values().get()
    url, data = tariff_form(admin_client)
    edit(data)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin_client.post(url, data)
    assert response.status_code == 200  # the form comes back with errors
    assert message in response.content.decode()
    assert callbacks == []
    assert list(DistanceBand.objects.values_list("tariff_id", "from_km", "to_km", "rate_per_km")) == before
    assert Tariff.objects.filter(vehicle_class__code="executive").values().get() == tariff_before
    assert executive_price(client) == 70.0


@pytest.mark.parametrize(
    "path",
    [
        "/admin/pricing/tariff/",
        "/admin/pricing/vehicleclass/",
        "/admin/pricing/tour/",
        "/admin/pricing/tour/add/",
        "/admin/booking/leadtimepolicy/",
    ],
)
def test_admin_pages_render(admin_client, path):
    assert admin_client.get(path).status_code == 200


def test_tariffs_and_classes_cannot_be_deleted(admin_client):
    tariff = Tariff.objects.first()
    assert admin_client.post(f"/admin/pricing/tariff/{tariff.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Tariff.objects.filter(pk=tariff.pk).exists()


def test_the_tariff_list_shows_the_rates_and_vat_as_a_percentage(admin_client):
    html = admin_client.get("/admin/pricing/tariff/").content.decode()
    assert "0–50 km 2.00 · 50–200 km 1.60 · from 200 km 1.40" in html
    assert "10 %" in html and "0.100" not in html


def test_the_saved_message_names_what_changed(admin_client, django_capture_on_commit_callbacks):
    url, data = tariff_form(admin_client)
    data["base_fare"] = "35.00"
    data[inline_prefix(data, "from_km", "0.0") + "-rate_per_km"] = "2.50"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, data, follow=True)
    (message,) = [str(message) for message in response.context["messages"]]
    assert message.endswith("was changed successfully. Base fare: 30.00 → 35.00; distance bands changed.")
