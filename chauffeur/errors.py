"""The one base of every domain failure. Doors turn it into their own format (problem+json on v1,
`{"error": …}` on legacy endpoints, an `isError` result on MCP); domain code never knows which."""


class DomainError(Exception):
    """A failure the caller can act on. `code` is stable (docs/decisions.md §8); `field` names the input
    at fault in the domain's own words (e.g. `vehicle_class`); each door maps it to its wire name."""

    code = "invalid_request"

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        field: str | None = None,
        hint: str | None = None,
        status: int | None = None,
        extra: dict | None = None,
    ):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.field = field
        self.hint = hint
        self.status = status  # only where the contract fixes another status than the code's own
        self.extra = extra or {}  # more members for the caller, e.g. expectedAmount
