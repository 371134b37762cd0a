"""The seller's legal details every invoice must name (UStG §11 (1): name and address of the supplier, its
UID): while the operator profile lacks one, no invoice is issued (payments/waiting_documents.py holds them),
the admin's home says so in red and `manage.py check --deploy` fails."""

from django.db import DatabaseError
from django.dispatch import Signal

from operator_profile.models import PROFILE_ID, OperatorProfile

REQUIRED = ("legal_name", "street_address", "postcode", "city", "vat_id")

# Staff saved a profile that names every required detail; the invoices waiting for it can be issued now.
# Sent with sender=OperatorProfile and `profile`; payments connects the job that issues them.
details_complete = Signal()


def missing(profile: OperatorProfile | None = None) -> list[str]:
    """The names (as the profile's form labels them) of the required details the profile lacks; all of them
    without a profile."""
    if profile is None:
        profile = OperatorProfile.objects.filter(id=PROFILE_ID).first()
    fields = {field.name: field for field in OperatorProfile._meta.concrete_fields}
    return [
        str(fields[name].verbose_name)
        for name in REQUIRED
        if not profile or not getattr(profile, name).strip()
    ]


def complete() -> bool:
    return not missing()


def missing_or_unknown() -> list[str] | None:
    """`missing()` where the database may not be there (a check before `migrate`): None when unreadable."""
    try:
        return missing()
    except DatabaseError:
        return None
