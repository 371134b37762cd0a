"""The staff roles of the staff guide (docs/staff/guide-en.md "Permissions"), as Django groups with exactly
these permissions: `manage.py staff_roles` creates them, or resets them to this list. A user may hold
several (dispatcher and accountant together take phone bookings paid in cash). Permissions are named as
"app_label.codename" text: the plumbing imports no domain app."""

from django.contrib.auth.models import Group, Permission
from django.db import transaction

# What each role reads: every model staff keep, read-only.
VIEW_ALL = [
    "booking.view_booking",
    "booking.view_leadtimepolicy",
    "booking.view_cancellationpolicy",
    "access.view_apitoken",
    "fleet.view_driver",
    "fleet.view_vehicle",
    "fleet.view_vehicleequipment",
    "pricing.view_tariff",
    "pricing.view_extra",
    "pricing.view_extralimit",
    "pricing.view_tour",
    "pricing.view_vehicleclass",
    "company.view_operatorprofile",
    "company.view_legaltext",
    "places.view_ratingsnapshot",
    "dispatch.view_ridedaypolicy",
    "business.view_companyaccount",
    "privacy.view_retentionpolicy",
    "privacy.view_hold",
    "privacy.view_datarequest",
    "quote_requests.view_quoterequest",
]
# Phone bookings with a payment link, assign, change rides (a difference through the provider), cancel under
# the terms, complete, notes; drivers and vehicles, their papers (scans of personal documents: dispatch
# only, not every reader) and what each car carries; travellers' requests for their data, answered; quote
# requests, answered or closed.
DISPATCH = [
    "booking.add_booking",
    "booking.change_booking",
    "privacy.add_datarequest",
    "privacy.change_datarequest",
    "quote_requests.change_quoterequest",  # answered or closed, with a note
    "fleet.change_driver",
    "fleet.change_vehicle",
    *(
        f"fleet.{action}_{model}"
        for model in ("driverpaper", "vehiclepaper", "vehicleequipment")
        for action in ("view", "add", "change", "delete")
    ),
]
# Refunds, "Paid back", "Mark as paid", the money after the ride; invoices, credit notes, the export for the
# accountant, the monthly revenue; company accounts' collective invoices and the transfers received.
ACCOUNTS = [
    "booking.view_booking",
    "booking.refund_booking",
    "booking.record_payment",
    "invoicing.view_invoice",
    "invoicing.view_creditnote",
    "payments.view_refund",
    "business.view_companyaccount",
    "payments.view_accountpayment",
    "payments.add_accountpayment",
    # a booking in dispute kept past its time
    *(f"privacy.{action}_hold" for action in ("view", "add", "change", "delete")),
]
ROLES: dict[str, list[str]] = {
    "Viewer": VIEW_ALL,
    "Dispatcher": [*VIEW_ALL, *DISPATCH],
    "Accountant": ACCOUNTS,
    # Issue, edit and revoke API tokens (and tie them to a company account); the webhook endpoints, theirs
    # and staff's, and their deliveries sent again.
    "Token manager": [
        "access.view_apitoken",
        "access.add_apitoken",
        "access.change_apitoken",
        *(f"webhooks.{action}_endpoint" for action in ("view", "add", "change", "delete")),
        "webhooks.view_delivery",
        "webhooks.change_delivery",
    ],
}


def permissions(names: list[str]) -> list[Permission]:
    """The permissions named "app_label.codename"; LookupError names any that does not exist (a model
    renamed without this list following it)."""
    wanted = {tuple(name.split(".", 1)) for name in names}
    found = {
        (permission.content_type.app_label, permission.codename): permission
        for permission in Permission.objects.select_related("content_type").filter(
            codename__in=[codename for _, codename in wanted]
        )
        if (permission.content_type.app_label, permission.codename) in wanted
    }
    if unknown := sorted(".".join(name) for name in wanted - set(found)):
        raise LookupError(f"No such permission: {', '.join(unknown)}")
    return list(found.values())


def ensure_roles() -> dict[str, bool]:
    """Each role as a group with exactly its permissions; whether each group was created now."""
    created = {}
    with transaction.atomic():
        for name, names in ROLES.items():
            group, created[name] = Group.objects.get_or_create(name=name)
            group.permissions.set(permissions(names))
    return created
