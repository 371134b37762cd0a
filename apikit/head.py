"""HEAD answered as GET without the body (RFC 9110 §9.3.2): Django's views answer HEAD with GET's full
response and leave dropping the body to the server, and gunicorn logs a warning each time it has to (an
uptime monitor's HEAD / every minute would fill the log). First in MIDDLEWARE, so the headers, including
GET's Content-Length, are final before the body goes."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse


class HeadWithoutBodyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if request.method == "HEAD":
            if isinstance(response, StreamingHttpResponse):
                response.streaming_content = []  # a file stays open until the server closes the response
            elif isinstance(response, HttpResponse):
                response.content = b""
        return response
