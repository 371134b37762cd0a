"""DRF's content negotiation with a shortcut for what nearly every caller sends (no Accept, `*/*` or
`application/json`): the answer DRF's general path would give, without its media-type parsing, which cost
about 0.05–0.1 ms of a warm API request (benchmarks/hotpath.py). Anything else takes DRF's own path."""

from rest_framework.negotiation import DefaultContentNegotiation

from apikit.query import query_of

JSON = "application/json"


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        query_of(request)  # read where DRF's path reads it: too many parameters is refused here
        first = self.plain_choice(request, renderers, format_suffix)
        if first is not None:
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)

    def plain_choice(self, request, renderers, format_suffix=None):
        """The renderer DRF's general path would pick for no Accept, `*/*` or `application/json`; None for
        anything else, which that path decides."""
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if renderers and format_suffix is None and self.settings.URL_FORMAT_OVERRIDE is None:
            first = renderers[0]
            if accept == "*/*" or (accept == JSON and first.media_type == JSON):
                return first
        return None
