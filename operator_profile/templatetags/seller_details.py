"""The admin home's warning while the operator profile lacks a detail every invoice must name."""

from django import template
from django.urls import reverse

from operator_profile import seller
from operator_profile.models import PROFILE_ID

register = template.Library()


@register.inclusion_tag("admin/company/seller_details_missing.html")
def seller_details_missing() -> dict:
    return {
        "missing": seller.missing(),
        "profile_url": reverse("admin:company_operatorprofile_change", args=[PROFILE_ID]),
    }
