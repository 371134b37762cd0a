"""OAuth's refusals (RFC 6749 §4.1.2.1, §5.2): Authlib's error classes, and the ones it lacks. Authlib's
unsupported_response_type/grant_type classes echo the client's value into a description that must stay
within a restricted character set, so those are raised as OAuth2Error(..., error=...) instead."""

from authlib.oauth2.rfc6749 import errors as rfc6749_errors
from authlib.oauth2.rfc6749.errors import (  # noqa: F401  (re-exported: one place names them)
    AccessDeniedError,
    InvalidClientError,
    InvalidGrantError,
    InvalidRequestError,
    InvalidScopeError,
    OAuth2Error,
)


class InvalidTargetError(rfc6749_errors.OAuth2Error):
    """RFC 8707 §2: the resource is not one this server issues tokens for."""

    error = "invalid_target"


class UnverifiedRedirect(Exception):
    """The client or its redirect URI cannot be trusted: the visitor gets an error page, never a redirect
    (RFC 6749 §4.1.2.1)."""
