"""django-cors-headers' middleware, and the OAuth endpoints open to every origin: an MCP client whose OAuth
runs in a web page discovers the metadata, registers, fetches and revokes tokens from that page. Those
endpoints take no cookies (CORS_ALLOW_CREDENTIALS stays off) and answer only what a client proves with its
code, verifier or token, so any origin may read them. /api/mcp stays closed to other origins (the MCP
transport's Origin check, mcp_endpoint/views.py): such a client sends its messages from a server.
Their preflight also allows Authorization (client_secret_basic) and MCP-Protocol-Version (the MCP SDKs
send it to the metadata)."""

import re

from corsheaders.middleware import ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_ORIGIN
from corsheaders.middleware import CorsMiddleware as DjangoCorsMiddleware
from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers


def open_to_every_origin(request: HttpRequest) -> bool:
    return bool(re.match(settings.OAUTH_CORS_URLS_REGEX, request.path_info))


class CorsMiddleware(DjangoCorsMiddleware):
    def check_signal(self, request: HttpRequest) -> bool:
        return open_to_every_origin(request) or super().check_signal(request)

    def add_response_headers(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if "HTTP_ORIGIN" not in request.META:  # no cross-origin caller: only the Vary an Origin would change,
            # without building request.headers for the one lookup (2 % of a warm API request)
            enabled = getattr(request, "_cors_enabled", None)
            if enabled or (enabled is None and self.is_enabled(request)):
                patch_vary_headers(response, ("origin",))
            return response
        response = super().add_response_headers(request, response)
        if (
            request.method == "OPTIONS"
            and ACCESS_CONTROL_ALLOW_ORIGIN in response
            and open_to_every_origin(request)
        ):
            allowed = [*settings.CORS_ALLOW_HEADERS, *settings.OAUTH_CORS_ALLOW_HEADERS]
            response[ACCESS_CONTROL_ALLOW_HEADERS] = ", ".join(dict.fromkeys(allowed))
        return response
