"""Extras, passengers and luggage in the quote engine: each extra a line after the rounding, checked against
the class (offered, at most its maximum, no more child seats than passengers), and the class against the
passengers and luggage, with the classes that would fit named."""

from dataclasses import replace
from decimal import Decimal as D
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apikit.errors import DomainError
from pricing.quote import BookingType, ExtraChoice, PriceRequest, booked_offers, compute_quote
from tests.pricing.defaults import DECISIONS_SNAPSHOT


def quote(vehicle_class="executive", distance_km="21.8", **options):
    return compute_quote(
        DECISIONS_SNAPSHOT, PriceRequest(vehicle_class=vehicle_class, distance_km=D(distance_km), **options)
    )


def refusal(**options) -> DomainError:
    with pytest.raises(DomainError) as raised:
        quote(**options)
    return raised.value


def test_each_extra_is_a_line_after_the_rounding_at_its_exact_price():
    plain = quote()
    with_extras = quote(extras=(ExtraChoice("name-sign"), ExtraChoice("child-seat", 2)))
    codes = [line.code for line in with_extras.lines]
    assert codes[-3:] == ["rounding", "extra", "extra"]
    # in the catalog's order, whatever the order asked in
    assert [line.params["code"] for line in with_extras.extra_lines] == ["child-seat", "name-sign"]
    assert [line.amount for line in with_extras.extra_lines] == [D("20.00"), D("15.00")]
    assert with_extras.price == plain.price + D("35.00")
    assert with_extras.net + with_extras.vat == with_extras.price
    assert with_extras.extras == (ExtraChoice("child-seat", 2), ExtraChoice("name-sign", 1))
    assert with_extras.extra_lines[0].label == "Child seat × 2"
    assert {line.kind.value for line in with_extras.priced_lines if line.code == "extra"} == {"extra"}


def test_an_extra_named_twice_counts_twice():
    twice = quote(extras=(ExtraChoice("booster-seat"), ExtraChoice("booster-seat")))
    assert twice.extras == (ExtraChoice("booster-seat", 2),)
    assert (
        refusal(extras=(ExtraChoice("booster-seat"), ExtraChoice("booster-seat", 2))).code
        == "too_many_extras"
    )


def test_a_quote_with_extras_survives_its_record():
    stored = quote(extras=(ExtraChoice("booster-seat", 2),), passengers=3)
    assert type(stored).from_record(stored.as_record()) == stored


def test_an_extra_not_offered_names_the_ones_that_are():
    problem = refusal(extras=(ExtraChoice("champagne"),))
    assert (problem.code, problem.field) == ("unknown_extra", "extras")
    assert "child-seat" in problem.detail and "name-sign" in problem.detail


def test_an_inactive_extra_or_one_a_class_does_not_offer_is_unknown():
    extras = dict(DECISIONS_SNAPSHOT.extras)
    extras["name-sign"] = replace(extras["name-sign"], active=False)
    extras["bulky-luggage"] = replace(extras["bulky-luggage"], maxima=MappingProxyType({"first": 0}))
    snapshot = replace(DECISIONS_SNAPSHOT, extras=MappingProxyType(extras))
    for vehicle_class, code in (("executive", "name-sign"), ("first", "bulky-luggage")):
        with pytest.raises(DomainError) as raised:
            compute_quote(
                snapshot,
                PriceRequest(vehicle_class, D("10"), extras=(ExtraChoice(code),)),
            )
        assert raised.value.code == "unknown_extra"
    assert compute_quote(snapshot, PriceRequest("executive", D("10"), extras=(ExtraChoice("bulky-luggage"),)))


def test_more_pieces_than_the_class_allows_are_refused_and_the_van_takes_more():
    problem = refusal(extras=(ExtraChoice("child-seat", 3),))
    assert (problem.code, problem.field) == ("too_many_extras", "extras")
    assert "At most 2 × Child seat" in problem.detail
    assert quote(vehicle_class="business-van", extras=(ExtraChoice("child-seat", 3),)).extra_lines
    assert refusal(extras=(ExtraChoice("name-sign", 2),)).code == "too_many_extras"  # once per booking


def test_no_more_child_seats_than_passengers():
    problem = refusal(passengers=1, extras=(ExtraChoice("child-seat"), ExtraChoice("booster-seat")))
    assert (problem.code, problem.field) == ("too_many_extras", "extras")
    assert "2 child seats for 1 passengers" in problem.detail
    # without passengers said, the class's seats bound them
    van = dict(passengers=None, vehicle_class="business-van")
    assert quote(**van, extras=(ExtraChoice("child-seat", 3), ExtraChoice("booster-seat", 3)))
    assert quote(passengers=2, extras=(ExtraChoice("child-seat"), ExtraChoice("booster-seat")))


def test_too_many_passengers_or_suitcases_name_the_classes_that_fit():
    problem = refusal(passengers=5)
    assert (problem.code, problem.field, problem.extra) == (
        "vehicle_too_small",
        "passengers",
        {"fittingClasses": ["business-van"]},
    )
    assert "seats 3 passengers, not 5" in problem.detail
    problem = refusal(vehicle_class="first", luggage=3)
    assert (problem.field, problem.extra["fittingClasses"]) == ("luggage", ["executive", "business-van"])
    problem = refusal(passengers=9)
    assert problem.extra == {"fittingClasses": []}
    assert "ask the operator for a quote" in problem.detail
    assert quote(passengers=3, luggage=3).price == quote().price  # what fits costs nothing more


def test_extras_are_added_to_hourly_hires_and_tours_too():
    hourly = quote(booking_type=BookingType.HOURLY, duration_hours=D("3"), extras=(ExtraChoice("name-sign"),))
    tour = quote(tour_slug="vienna-city-tour", extras=(ExtraChoice("infant-carrier"),))
    assert hourly.price == D("195.00") + D("15.00")
    assert tour.price == D("249.00") + D("10.00")


extras_asked = st.lists(
    st.tuples(st.sampled_from(list(DECISIONS_SNAPSHOT.extras)), st.integers(1, 3)),
    max_size=5,
    unique_by=lambda pair: pair[0],
)


@given(
    vehicle_class=st.sampled_from(["executive", "first", "business-van"]),
    km=st.decimals(D("0"), D("900"), places=1),
    in_zone_a=st.booleans(),
    passengers=st.none() | st.integers(1, 9),
    asked=extras_asked,
)
def test_the_price_of_a_trip_is_the_sum_of_its_lines(vehicle_class, km, in_zone_a, passengers, asked):
    extras = tuple(ExtraChoice(code, quantity) for code, quantity in asked)
    try:
        priced = quote(vehicle_class, str(km), in_zone_a=in_zone_a, passengers=passengers, extras=extras)
    except DomainError as problem:
        assert problem.code in {"too_many_extras", "vehicle_too_small"}
        return
    assert sum((line.amount for line in priced.lines), D("0")) == priced.price
    assert priced.price == quote(vehicle_class, str(km), in_zone_a=in_zone_a).price + sum(
        (DECISIONS_SNAPSHOT.extras[code].price * quantity for code, quantity in asked), D("0")
    )
    assert {choice.code for choice in priced.extras} == {code for code, _quantity in asked}


def test_what_was_booked_stays_when_staff_lower_a_maximum_or_withdraw_an_extra():
    booked = quote(extras=(ExtraChoice("child-seat", 2), ExtraChoice("name-sign")))
    extras = dict(DECISIONS_SNAPSHOT.extras)
    extras["child-seat"] = replace(extras["child-seat"], maximum=1)
    extras["name-sign"] = replace(extras["name-sign"], active=False, price=D("25.00"))
    snapshot = replace(DECISIONS_SNAPSHOT, extras=MappingProxyType(extras))

    def again(vehicle_class: str, **kept):
        return compute_quote(snapshot, PriceRequest(vehicle_class, D("21.8"), extras=booked.extras, **kept))

    same = again("executive", booked_extras=booked_offers(booked))
    assert same.price == booked.price
    assert [line.label for line in same.extra_lines] == ["Child seat × 2", "Name sign at arrivals"]
    with pytest.raises(DomainError) as raised:  # another class takes only what it offers
        again("first", booked_extras=booked_offers(booked))
    assert raised.value.code == "unknown_extra"  # the withdrawn name sign
    extras["name-sign"] = replace(extras["name-sign"], active=True)
    with pytest.raises(DomainError) as raised:
        again("first", booked_extras=booked_offers(booked))
    assert raised.value.code == "too_many_extras"  # two child seats where one is the most
    with pytest.raises(DomainError) as raised:  # and nobody books them anew
        again("executive")
    assert raised.value.code in {"too_many_extras", "unknown_extra"}
