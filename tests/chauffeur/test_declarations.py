"""Declarations are compiled once per class (chauffeur/api/declarations.py): instances share bound fields,
never a request's data, errors or results."""

import inspect

import pytest
from rest_framework import serializers

from booking import serializers as booking_declarations
from booking.serializers import AgentBookingDataInput, AgentCheckoutInput, CheckoutInput
from chauffeur.api.declarations import Declaration
from places import serializers as places_declarations
from pricing import serializers as pricing_declarations
from pricing.serializers import PriceInput


def test_fields_are_built_once_per_declaration_and_bound_to_no_request():
    first, second = PriceInput(data={"vehicleClass": "first"}), PriceInput(data={})
    assert first.fields is second.fields
    assert first.fields["distanceKm"].parent is not first and first.fields["distanceKm"].parent is not second
    # A subclass compiles its own: the agent checkout keeps its stricter ride.
    assert isinstance(AgentCheckoutInput().fields["bookingData"], AgentBookingDataInput)
    assert not isinstance(CheckoutInput().fields["bookingData"], AgentBookingDataInput)


def test_instances_share_fields_but_not_results():
    refused = PriceInput(data={"vehicleClass": "limousine"})
    accepted = PriceInput(data={"vehicleClass": "first", "distanceKm": "20.25"})
    assert not refused.is_valid()
    assert accepted.is_valid(), accepted.errors
    assert set(refused.errors) == {"vehicleClass", "distanceKm"}
    assert accepted.errors == {}
    assert str(accepted.validated_data["distance_km"]) == "20.250000"
    nested = CheckoutInput(data={"amount": 7400, "bookingData": {"from": "Stephansplatz"}})
    assert not nested.is_valid()
    assert set(nested.errors["bookingData"]) == {"to"}
    assert CheckoutInput(data={"amount": 7400, "bookingData": {"from": "A", "to": "B"}}).is_valid()


@pytest.mark.parametrize("module", [pricing_declarations, places_declarations, booking_declarations])
def test_every_declaration_is_compiled_once(module):
    declared = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, serializers.Serializer)
        and value.__module__ == module.__name__
    ]
    assert declared
    assert [value.__name__ for value in declared if not issubclass(value, Declaration)] == []
