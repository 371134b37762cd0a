"""The base of every REST operation with an input: one declaration validates the query (GET, HEAD) or the
body, and names the fields of domain errors as the caller sent them."""

from collections.abc import Callable

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from chauffeur.api.query import query_of


class Operation(APIView):
    """DRF makes an operation's renderers, parsers, authenticators, permissions, throttles and negotiator
    anew for each request. None of them keeps a request's state, so each operation class makes them once,
    on its first request. (Not the Allow header: it depends on the instance, which gains `head` only when
    a request sets it up.)"""

    input_serializer: type[serializers.Serializer]

    def get_renderers(self):
        return self._once("renderers", super().get_renderers)

    def get_parsers(self):
        return self._once("parsers", super().get_parsers)

    def get_authenticators(self):
        return self._once("authenticators", super().get_authenticators)

    def get_permissions(self):
        return self._once("permissions", super().get_permissions)

    def get_throttles(self):
        return self._once("throttles", super().get_throttles)

    def get_content_negotiator(self):
        return self._once("negotiator", super().get_content_negotiator)

    def _once(self, what: str, make: Callable):
        name = f"_made_{what}"
        made = type(self).__dict__.get(name)  # this class's own: a subclass may declare other classes
        if made is None:
            made = make()
            setattr(type(self), name, tuple(made) if isinstance(made, list) else made)
        return type(self).__dict__[name]

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
