"""`manage.py check --deploy`: no deployment while invoices would wait for the seller's legal details."""

from django.core import checks
from django.urls import reverse

from operator_profile import seller
from operator_profile.models import PROFILE_ID


@checks.register("operator", deploy=True)
def seller_details_complete(app_configs, **kwargs):
    """An error while the operator profile lacks a detail every invoice must name. A database the check cannot
    read (not reachable, not migrated yet) is left to `migrate` and the start-up: nothing is said."""
    lacking = seller.missing_or_unknown()
    if not lacking:
        return []
    profile_page = reverse("admin:company_operatorprofile_change", args=[PROFILE_ID])
    return [
        checks.Error(
            "The operator profile lacks the seller's legal details every invoice must name (UStG §11): "
            f"{', '.join(lacking)}. Paid bookings wait for their invoices until they are filled in.",
            hint=f"Fill them in the admin at {profile_page} (Company › Operator profile › Legal details).",
            id="company.E001",
        )
    ]
