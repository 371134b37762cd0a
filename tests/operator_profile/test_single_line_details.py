"""Every single-line detail of the operator profile refuses a line break or a control character with a clear
error, saving nothing: the legal name and address print as the invoice's seller block and fill the legal
texts' lines, where a line break would split them. A company account's address likewise (its collective
invoice), the names of a vehicle class and a tour (every invoice's service), and the names and places staff
type into a phone booking (tests/dispatch/test_staff_pricing.py)."""

import pytest
from django.db import models

from operator_profile.models import OperatorProfile
from tests.operator_profile.test_operator_profile import CHANGE, ONE_LINE, profile_form

pytestmark = pytest.mark.django_db

SINGLE_LINE = [
    field.name
    for field in OperatorProfile._meta.get_fields()
    if type(field) is models.CharField
    and field.editable
    and not field.choices
    and field.name not in ("logo_type", "brand_colour", "header_colour")  # a colour refuses all but #rrggbb
]


def test_the_profile_lists_its_single_line_details():
    assert {
        "legal_name",
        "street_address",
        "postcode",
        "city",
        "vat_id",
        "iban",
        "bic",
        "company_register_number",
        "business_purpose",
    } <= set(SINGLE_LINE)


@pytest.mark.parametrize("field", SINGLE_LINE)
@pytest.mark.parametrize("value", ["AT1\r\nX", "AT1\nX", "AT1\u2028X", "AT1\x1bX"])
def test_a_line_break_in_any_single_line_detail_is_refused_saving_nothing(admin_client, field, value):
    before = OperatorProfile.objects.values().get()
    response = admin_client.post(CHANGE, profile_form(**{field: value}))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert ONE_LINE in errors[field], errors
    assert OperatorProfile.objects.values().get() == before


def test_the_legal_details_on_one_line_are_saved(admin_client):
    details = {
        "legal_name": "Wiener Chauffeur GmbH",
        "street_address": "Kärntner Ring 5",
        "postcode": "1010",
        "city": "Wien",
        "vat_id": "ATU12345678",
    }
    assert admin_client.post(CHANGE, profile_form(**details)).status_code == 302
    assert OperatorProfile.objects.values(*details).get() == details


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/admin/pricing/tour/{tour}/change/", "name_de"),
        ("/admin/pricing/tour/{tour}/change/", "name_en"),
        ("/admin/pricing/vehicleclass/{first}/change/", "display_name"),
    ],
)
def test_the_names_an_invoice_prints_for_a_class_or_tour_refuse_a_line_break(admin_client, path, field):
    from pricing.models import Tour, VehicleClass
    from tests.admin_forms import change_form_data

    url = path.format(
        tour=Tour.objects.get(slug="vienna-city-tour").pk, first=VehicleClass.objects.get(code="first").pk
    )
    model = Tour if "tour" in path else VehicleClass
    before = list(model.objects.values_list(field, flat=True))
    response = admin_client.post(url, {**change_form_data(admin_client.get(url)), field: "Wien\r\nTour"})
    assert response.status_code == 200
    assert ONE_LINE in response.context["adminform"].form.errors[field]
    assert list(model.objects.values_list(field, flat=True)) == before
