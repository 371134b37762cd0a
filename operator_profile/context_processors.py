from django.http import HttpRequest

from operator_profile.services import Branding, operator_branding


def operator(request: HttpRequest) -> dict[str, Branding]:
    """`operator` in every template: the company's name, contacts, logo and colours."""
    return {"operator": operator_branding()}
