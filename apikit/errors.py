"""The one base of every domain failure. Doors turn it into their own format (problem+json on v1,
`{"error": …}` on legacy endpoints, an `isError` result on MCP); domain code never knows which.

A refusal is worded once, as a lazy translation (`format_lazy(_("…{name}…"), name=…)`): the APIs read
it in LANGUAGE_CODE (their messages are part of their contract), people read it in their own language
(`in_words()`: staff in the admin, a traveller on a page)."""

from django.conf import settings
from django.utils import translation


class DomainError(Exception):
    """A failure the caller can act on. `code` is stable (docs/decisions.md §8); `field` names the input
    at fault in the domain's own words (e.g. `vehicle_class`); each door maps it to its wire name."""

    code = "invalid_request"

    def __init__(
        self,
        detail,
        *,
        code: str | None = None,
        field: str | None = None,
        hint: str | None = None,
        status: int | None = None,
        extra: dict | None = None,
        shown=None,
    ):
        """`detail` is a text or a lazy translation; `shown` words it for people where their formats
        differ from the API's (money as "74,00 €", times in Vienna, not ISO)."""
        with translation.override(settings.LANGUAGE_CODE):
            self.detail = str(detail)
        super().__init__(self.detail)
        self.words = detail if shown is None else shown
        if code is not None:
            self.code = code
        self.field = field
        self.hint = hint
        self.status = status  # only where the contract fixes another status than the code's own
        self.extra = extra or {}  # more members for the caller, e.g. expectedAmount

    def in_words(self) -> str:
        """The refusal in the active language, for the person reading it."""
        return str(self.words)
