"""Pages and answers are private and stored by no cache unless their view says otherwise (docs/operations/
configuration.md "Caching"): the manage and success pages, job pages, the API's bookings, the admin and
the MCP endpoint show personal data or carry capability links, and neither a shared proxy nor the
browser's disk may keep them. One rule for every view, so a new page is covered without remembering it:
an answer without Cache-Control gets `private, no-store`, and one that says `no-store` alone gets
`private` beside it. Public answers name their own caching (static files, brand.css and the logo, the
OAuth metadata documents) and keep it."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

PRIVATE = "private, no-store"


class PrivateAnswersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        given = response.get("Cache-Control")
        if not given:
            response["Cache-Control"] = PRIVATE
        elif "no-store" in given and "private" not in given:
            response["Cache-Control"] = f"private, {given}"
        return response
