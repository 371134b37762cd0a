"""Public reads (apikit/public_reads.py): their Cache-Control, a strong ETag of their bytes, 304 for a copy
still current, a staff edit of the tariffs seen in the price's ETag, and the OpenAPI document saying so for
exactly these operations. Every other answer stays private and unvalidated."""

import hashlib

import pytest

from apikit.public_reads import PUBLIC_READS, freshness_by_path
from pricing.models import Extra, Tariff
from tests.admin_forms import change_form_data, inline_prefix
from tests.conftest import bearer

pytestmark = pytest.mark.django_db

PRICE = "/api/v1/price"
FIRST_20_KM = {"vehicleClass": "first", "distanceKm": "20"}
CACHE_CONTROL = {
    "/openapi.json": "public, max-age=300",
    "/api/v1": "public, max-age=300",
    "/api/mcp": "public, max-age=300",
    "/api/v1/rating": "public, max-age=300",
    "/api/google-rating": "public, max-age=300",
    "/api/v1/extras": "public, no-cache",
    f"{PRICE}?vehicleClass=first&distanceKm=20": "public, no-cache",
}


def test_the_list_is_what_these_tests_read():
    assert set(freshness_by_path()) == {path.split("?")[0] for path in CACHE_CONTROL}
    assert len(PUBLIC_READS) == len(CACHE_CONTROL)


@pytest.mark.parametrize("path", CACHE_CONTROL)
def test_a_public_read_is_validated_and_answered_304_while_current(client, path):
    first = client.get(path)
    assert first.status_code == 200
    assert first["Cache-Control"] == CACHE_CONTROL[path]
    assert (
        first["ETag"] == f'"{hashlib.md5(first.content, usedforsecurity=False).hexdigest()}"'
    )  # strong: these very bytes
    assert client.get(path)["ETag"] == first["ETag"]  # stable while nothing changed

    again = client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"] and again["Cache-Control"] == first["Cache-Control"]
    assert "Content-Type" not in again
    assert "RateLimit" in again or not path.startswith("/api")  # a 304 is counted like any request


@pytest.mark.parametrize(
    ("if_none_match", "status"),
    [
        ("{etag}", 304),
        ("W/{etag}", 304),  # compared weakly (RFC 9110 §13.1.2)
        ('"stale", {etag}', 304),
        ("*", 304),
        ('"stale"', 200),
        ("{bare}", 200),  # not a quoted tag: not a tag
        ("", 200),
    ],
)
def test_if_none_match_as_rfc_9110_reads_it(client, if_none_match, status):
    etag = client.get("/api/v1")["ETag"]
    header = if_none_match.format(etag=etag, bare=etag.strip('"'))
    answer = client.get("/api/v1", HTTP_IF_NONE_MATCH=header)
    assert answer.status_code == status
    assert (answer.content == b"") is (status == 304)


def test_an_error_of_a_public_read_stays_private_and_unvalidated(client):
    refused = client.get(PRICE, {"vehicleClass": "first"}, HTTP_IF_NONE_MATCH="*")
    assert refused.status_code == 400
    assert refused["Cache-Control"] == "private, no-store" and "ETag" not in refused


def test_other_answers_stay_private_and_unvalidated(client):
    token = bearer("booking.read")
    for path in ("/api/v1/bookings", "/api/v1/availability?pickupDatetime=2030-05-02T10:00:00%2B02:00"):
        answer = client.get(path, HTTP_IF_NONE_MATCH="*", **token)
        assert answer.status_code == 200, (path, answer.content)
        assert answer["Cache-Control"] == "private, no-store" and "ETag" not in answer


def first_class_tariff(admin_client) -> tuple[str, dict]:
    tariff = Tariff.objects.get(vehicle_class__code="first")
    url = f"/admin/pricing/tariff/{tariff.pk}/change/"
    return url, change_form_data(admin_client.get(url))


def test_staff_editing_the_tariff_changes_the_prices_etag(
    admin_client, client, django_capture_on_commit_callbacks
):
    before = client.get(PRICE, FIRST_20_KM)
    url, data = first_class_tariff(admin_client)
    data[inline_prefix(data, "from_km", "0.0") + "-rate_per_km"] = "9.50"
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302

    after = client.get(PRICE, FIRST_20_KM, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200  # the copy held is no longer the price
    assert after.json()["priceEur"] != before.json()["priceEur"]
    assert after["ETag"] != before["ETag"]
    assert client.get(PRICE, FIRST_20_KM, HTTP_IF_NONE_MATCH=after["ETag"]).status_code == 304


def test_an_edit_that_leaves_a_price_as_it_was_leaves_its_etag(
    admin_client, client, django_capture_on_commit_callbacks
):
    """The ETag is the answer's bytes, not the tariffs' version: another class's edit keeps this copy."""
    executive = {"vehicleClass": "executive", "distanceKm": "20"}
    before = client.get(PRICE, executive)
    url, data = first_class_tariff(admin_client)
    data["base_fare"] = "99.00"
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302
    assert client.get(PRICE, executive, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304


def test_staff_editing_an_extras_price_changes_the_lists_etag(
    admin_client, client, django_capture_on_commit_callbacks
):
    before = client.get("/api/v1/extras")
    extra = Extra.objects.filter(active=True).first()
    url = f"/admin/pricing/extra/{extra.pk}/change/"
    data = change_form_data(admin_client.get(url))
    data["price"] = "77.00"
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302
    after = client.get("/api/v1/extras", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert "77.00" in after.content.decode()


@pytest.fixture
def document(client):
    return client.get("/openapi.json").json()


def test_the_document_declares_validators_on_exactly_the_public_reads(document):
    declared = set()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            names = {parameter["name"] for parameter in operation.get("parameters", [])}
            if "If-None-Match" in names or "304" in operation["responses"]:
                declared.add((method, path))
    # /openapi.json is not in its own document
    assert declared == {("get", path) for path in freshness_by_path() if path != "/openapi.json"}


def test_a_public_reads_operation_says_what_it_sends(document):
    price = document["paths"][PRICE]["get"]
    condition = next(parameter for parameter in price["parameters"] if parameter["name"] == "If-None-Match")
    assert condition["in"] == "header" and condition["required"] is False
    ok, unchanged = price["responses"]["200"], price["responses"]["304"]
    assert ok["headers"]["ETag"] == unchanged["headers"]["ETag"] == {"$ref": "#/components/headers/ETag"}
    assert ok["headers"]["Cache-Control"]["schema"]["example"] == "public, no-cache"
    assert "content" not in unchanged
    assert {"RateLimit", "RateLimit-Policy"} <= set(unchanged["headers"])
    assert "ETag" in document["components"]["headers"]
    catalog = document["paths"]["/api/v1"]["get"]["responses"]
    assert "400" not in catalog  # a header no value of which is refused
    assert catalog["200"]["headers"]["Cache-Control"]["schema"]["example"] == "public, max-age=300"
