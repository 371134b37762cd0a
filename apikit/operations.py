"""The base of every REST operation with an input: one declaration validates the query (GET, HEAD) or the
body, and names the fields of domain errors as the caller sent them."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from apikit.negotiation import JSON, ContentNegotiation
from apikit.query import query_of


class Operation(APIView):
    """An operation's handler answers with `apikit.renderers.Answer`.

    A read (GET, HEAD) of an operation that asks for no token, no permission and no throttle, by a caller
    that accepts JSON, goes from `dispatch` straight to its handler: DRF's `initial` would only pick the
    JSON renderer, find no user, permit the request and throttle nothing. Its answer and every error are
    then finalized as DRF does. Any other request takes DRF's own path. tests/apikit/test_operations.py
    compares both paths' answers over every operation.

    DRF makes an operation's renderers, parsers, authenticators, permissions, throttles and negotiator
    anew for each request. None of them keeps a request's state, so each operation class makes them once,
    on its first request. (Not the Allow header of DRF's path: it depends on the instance, which gains
    `head` only when a request sets it up.)"""

    input_serializer: type[serializers.Serializer]

    def dispatch(self, request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        renderer = self._plain_read_renderer(request, kwargs)
        if renderer is None:
            return super().dispatch(request, *args, **kwargs)
        self.args, self.kwargs, self.format_kwarg = args, kwargs, None
        self.request = read = self.initialize_request(request, *args, **kwargs)
        read.accepted_renderer, read.accepted_media_type = renderer, renderer.media_type
        read.version, read.versioning_scheme = None, None
        # Made once per class: this instance is set up (it has `head`), as every plain read's is.
        self.headers = dict(self._once("read_headers", lambda: self.default_response_headers))
        assert request.method is not None  # noqa: S101  (_plain_read_renderer: GET or HEAD)
        try:
            query_of(request)  # where DRF's negotiation reads it: too many parameters is refused here
            response = getattr(self, request.method.lower())(read, *args, **kwargs)
        except Exception as exc:
            response = self.handle_exception(exc)
        self.response = self.finalize_response(read, response, *args, **kwargs)
        return self.response

    def _plain_read_renderer(self, request: HttpRequest, kwargs: dict) -> BaseRenderer | None:
        """The renderer of a read that DRF would check nothing for; None for any other request."""
        if request.method not in ("GET", "HEAD") or not self._once(
            "plain_reads", self._checks_nothing_on_reads
        ):
            return None
        suffix = kwargs.get(self.settings.FORMAT_SUFFIX_KWARG)  # what DRF's get_format_suffix reads
        return self.get_content_negotiator().plain_choice(request, self.get_renderers(), suffix)

    def _checks_nothing_on_reads(self) -> bool:
        return (
            hasattr(self, "get")
            and not self.get_authenticators()
            and all(type(permission) is AllowAny for permission in self.get_permissions())
            and not self.get_throttles()
            and self.versioning_class is None
            and isinstance(self.get_content_negotiator(), ContentNegotiation)
            and self.get_renderers()[0].media_type == JSON
        )

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
