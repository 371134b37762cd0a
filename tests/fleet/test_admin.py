"""Drivers and vehicles in the admin: staff add them, deactivate instead of deleting (bookings name them)."""

import pytest

from fleet.models import Driver, Vehicle
from pricing.models import VehicleClass
from tests.admin_forms import empty_inline

pytestmark = pytest.mark.django_db


def test_staff_add_a_driver_and_a_vehicle(admin_client):
    response = admin_client.post(
        "/admin/fleet/driver/add/",
        {
            "name": "Karl Huber",
            "phone": "+43 660 1112223",
            "email": "karl@chauffeur.test",
            "languages": "de, en",
            "active": "on",
            **empty_inline("papers"),
        },
    )
    assert response.status_code == 302
    assert Driver.objects.get().language_codes == ["de", "en"]
    executive = VehicleClass.objects.get(code="executive")
    response = admin_client.post(
        "/admin/fleet/vehicle/add/",
        {
            "plate": "W-1000A",
            "vehicle_class": executive.pk,
            "model": "E-Class",
            "seats": 3,
            "luggage": 3,
            "active": "on",
            **empty_inline("papers"),
            **empty_inline("equipment"),
        },
    )
    assert response.status_code == 302
    listing = admin_client.get("/admin/fleet/vehicle/").content.decode()
    assert "W-1000A" in listing and "Executive Class" in listing


def test_a_vehicle_plate_is_unique_and_nothing_is_deleted(admin_client):
    executive = VehicleClass.objects.get(code="executive")
    vehicle = Vehicle.objects.create(plate="W-1000A", vehicle_class=executive, seats=3, luggage=3)
    response = admin_client.post(
        "/admin/fleet/vehicle/add/",
        {
            "plate": "W-1000A",
            "vehicle_class": executive.pk,
            "seats": 3,
            "luggage": 3,
            **empty_inline("papers"),
        },
    )
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert admin_client.post(f"/admin/fleet/vehicle/{vehicle.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Vehicle.objects.count() == 1
