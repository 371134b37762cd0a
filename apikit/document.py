"""GET /openapi.json: drf-spectacular's document, made once per process and language. It changes only
with a release (its Cache-Control says so: apikit/public_reads.py), and making it costs about 40 ms of
CPU, which any caller could otherwise ask for in a loop. The catalog (GET /api/v1) reads the same copy."""

import threading

from django.conf import settings
from django.dispatch import receiver
from django.test.signals import setting_changed
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.request import Request
from rest_framework.response import Response

_documents: dict[str, dict] = {}
# drf-spectacular loads its extensions on first use, and two threads doing so at once can fail (a threaded
# worker's first requests): one generation at a time.
_generating = threading.Lock()


def openapi_document() -> dict:
    """The document in the active language (a language the site does not offer reads as the default)."""
    try:
        language = translation.get_supported_language_variant(translation.get_language() or "")
    except LookupError:
        language = settings.LANGUAGE_CODE
    document = _documents.get(language)
    if document is None:
        with _generating, translation.override(language):
            document = _documents.get(language)
            if document is None:
                document = _documents[language] = SchemaGenerator().get_schema(request=None, public=True)
    return document


class DocumentView(SpectacularJSONAPIView):
    def _get_schema_response(self, request: Request) -> Response:
        # The document has one version, the service's: `?version=` names none of its own.
        return Response(
            data=openapi_document(),
            headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, None)}"'},
        )


@receiver(setting_changed)
def _forget_documents(**kwargs) -> None:
    """A test that changes a setting (the public base URL the document's server names) gets a new one."""
    _documents.clear()
