"""The base of every REST operation with an input: one declaration validates the query (GET, HEAD) or the
body, and names the fields of domain errors as the caller sent them."""

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from chauffeur.api.query import query_of


class Operation(APIView):
    input_serializer: type[serializers.Serializer]

    def validated(self, request: Request) -> serializers.Serializer:
        # The query as a plain dict, not the QueryDict: DRF reads a missing boolean in form-style data as
        # False, which would override the declared defaults.
        data = query_of(request) if request.method in ("GET", "HEAD") else request.data
        serializer = self.input_serializer(data=data)
        serializer.is_valid(raise_exception=True)
        return serializer


def wire_name(declaration: type[serializers.Serializer], domain_name: str) -> str:
    """The caller's name for a domain field: the declared field whose source it is (nested ones dotted,
    e.g. `pickup` → `bookingData.pickupDatetime`); the domain name itself if none declares it."""
    return _find(declaration(), domain_name) or domain_name


def _find(serializer: serializers.Serializer, domain_name: str) -> str | None:
    fields = serializer.fields
    for name, field in fields.items():
        if field.source == domain_name:
            return name
    for name, field in fields.items():
        if isinstance(field, serializers.Serializer) and (found := _find(field, domain_name)):
            return f"{name}.{found}"
    return None
