"""Declarations are compiled once per class (apikit/declarations.py): instances share bound fields,
never a request's data, errors or results."""

import inspect
from datetime import date, datetime
from decimal import Decimal
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import FixedDecimalField
from booking import serializers as booking_declarations
from booking.serializers import AgentBookingDataInput, AgentCheckoutInput, CheckoutInput
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


# --- The planned loops give DRF's own answers -------------------------------------------------------------


def every_declaration() -> list[type[Declaration]]:
    from django.urls import get_resolver

    import mcp_endpoint.tools  # noqa: F401  (the MCP tools' declarations)

    get_resolver().url_patterns  # noqa: B018 - imports every view and its declarations
    found, pending = [], [Declaration]
    while pending:
        for subclass in pending.pop().__subclasses__():
            found.append(subclass)
            pending.append(subclass)
    return found


def sample(field: serializers.Field, depth: int = 0):
    """A value of the field's kind, as an instance would hold it (the output side's input)."""
    if isinstance(field, serializers.ListSerializer):
        return [sample(field.child, depth + 1), sample(field.child, depth + 1)]
    if isinstance(field, serializers.Serializer):
        return {name: sample(child, depth + 1) for name, child in field.fields.items()} if depth < 4 else {}
    if isinstance(field, serializers.ChoiceField):
        return next(iter(field.choices), "x")
    if isinstance(field, serializers.BooleanField):
        return True
    if isinstance(field, serializers.DecimalField):
        return Decimal("12.345")
    if isinstance(field, serializers.IntegerField):
        return 7
    if isinstance(field, serializers.FloatField):
        return 1.5
    if isinstance(field, serializers.DateTimeField):
        return datetime(2026, 12, 24, 18, 30, tzinfo=ZoneInfo("Europe/Vienna"))
    if isinstance(field, serializers.DateField):
        return date(2026, 12, 24)
    if isinstance(field, serializers.ListField):
        return [sample(field.child, depth + 1)]
    if isinstance(field, serializers.DictField):
        return {"key": "value"}
    return "Stephansplatz 1"


def outcome(function, *args):
    """What a call gives: its value, or its error's type and detail."""
    try:
        return ("value", function(*args))
    except Exception as exc:
        return ("error", type(exc), getattr(exc, "detail", str(exc)))


def by_source(declaration: Declaration, values: dict) -> dict:
    """`values` (by wire name) keyed as an instance holds them: by each field's first source attribute."""
    held = {}
    for name, field in declaration.fields.items():
        if name in values and field.source != "*" and field.source_attrs:
            held[field.source_attrs[0]] = values[name]
    return held


@pytest.mark.parametrize("declaration", every_declaration(), ids=lambda item: item.__qualname__)
def test_the_planned_loops_answer_as_drf_does(declaration):
    template = declaration()
    values = {name: sample(field) for name, field in template.fields.items()}
    instances = [
        by_source(template, values),  # a mapping
        SimpleNamespace(**by_source(template, values)),  # an object
        {},  # nothing there: DRF's defaults, skips or errors
        SimpleNamespace(),
        {name: "7" for name in by_source(template, values)},  # text where numbers are due: converted
        {name: "x" for name in by_source(template, values)},  # or refused alike
    ]
    for instance in instances:
        planned = outcome(declaration().to_representation, instance)
        assert planned == outcome(serializers.Serializer.to_representation, declaration(), instance)
        assert outcome(declaration.write, instance) == planned

    written = outcome(declaration().to_representation, instances[0])
    inputs = [
        written[1] if written[0] == "value" else values,  # what the output side wrote, read back
        values,
        {},
        {name: "not-a-value" for name in values},
        {name: None for name in values},
        ["not", "a", "mapping"],
    ]
    for data in inputs:
        planned = outcome(declaration().to_internal_value, data)
        assert planned == outcome(serializers.Serializer.to_internal_value, declaration(), data)


@pytest.mark.parametrize(
    "value", ["0", "70", "70.005", "70.015", "-3.335", "9999999999.994", "123456789012.5", "1E+3", "0.0049"]
)
def test_fixed_decimal_fields_round_as_drf_s_decimal_field(value):
    mine = FixedDecimalField(max_digits=12, decimal_places=2)
    drf = serializers.DecimalField(max_digits=12, decimal_places=2)
    assert outcome(mine.to_representation, Decimal(value)) == outcome(drf.to_representation, Decimal(value))
    assert outcome(mine.run_validation, value) == outcome(drf.run_validation, value)
