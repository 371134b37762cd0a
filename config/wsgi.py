import io
import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class ChunkedBodies:
    """gunicorn hands Django a chunked request body (Transfer-Encoding: chunked) without a Content-Length,
    which Django reads as empty. Read it here, at most one byte past Django's own upload limit, so a
    too-large body is still refused by Django as too large."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if (
            not environ.get("CONTENT_LENGTH")
            and environ.get("wsgi.input_terminated")
            and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            body = environ["wsgi.input"].read(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
        return self.app(environ, start_response)


application = ChunkedBodies(get_wsgi_application())
