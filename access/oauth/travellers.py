"""The traveller signed in for consent: the verified, lower-cased e-mail the sign-in page (/oauth/sign-in)
writes to the session."""

from django.http import HttpRequest

SESSION_KEY = "oauth.traveller"


def signed_in_traveller(request: HttpRequest) -> str | None:
    return request.session.get(SESSION_KEY) or None
