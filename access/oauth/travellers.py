"""The traveller signed in on the consent pages (written by the sign-in, access/oauth/sign_in views)."""

from django.http import HttpRequest

SESSION_KEY = "oauth.traveller"


def signed_in_traveller(request: HttpRequest) -> str | None:
    return request.session.get(SESSION_KEY) or None
