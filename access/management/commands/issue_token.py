from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from access.models import ApiToken, Scope
from access.tokens import issue_token


def find_company_account(named: str):
    """The active company account with this id or name (case-insensitive); CommandError otherwise. The
    model is read through the token's field: access imports no other app."""
    account_model: Any = ApiToken._meta.get_field("company_account").related_model  # its class is not ours
    accounts = account_model.objects
    found = list(accounts.filter(pk=int(named)) if named.isdigit() else accounts.filter(name__iexact=named))
    if not found:
        raise CommandError(f"No company account {named!r} (give its id or its exact name).")
    if len(found) > 1:
        ids = ", ".join(str(account.pk) for account in found)
        raise CommandError(f"{len(found)} company accounts are named {named!r}: give the id ({ids}).")
    if not found[0].active:
        raise CommandError(f"The company account {found[0].name!r} is inactive: switch it active first.")
    return found[0]


class Command(BaseCommand):
    help = "Issue an API token. The token is printed alone on the last line; it cannot be shown again."

    def add_arguments(self, parser):
        parser.add_argument("name", help="Who or what uses the token.")
        parser.add_argument("--scope", action="append", choices=Scope.values, required=True, dest="scopes")
        parser.add_argument(
            "--expires-days", type=int, default=None, help="Days until it expires (default never)."
        )
        parser.add_argument(
            "--rate-limit",
            type=int,
            default=None,
            help=f"Requests per {settings.API_RATE_LIMIT_WINDOW_SECONDS} s "
            f"(default {settings.API_RATE_LIMIT_REQUESTS}).",
        )
        parser.add_argument(
            "--company-account",
            default=None,
            metavar="ID_OR_NAME",
            help="Tie the token to this active company account (its id or exact name): its checkouts with "
            'paymentMethod "account" book on the account for the addresses the account lists.',
        )

    def handle(self, *args, name, scopes, expires_days, rate_limit, company_account: str | None, **options):
        if expires_days is not None and expires_days < 1:
            raise CommandError("--expires-days must be at least 1.")
        if rate_limit is not None and rate_limit < 1:
            raise CommandError("--rate-limit must be at least 1.")
        account = find_company_account(company_account) if company_account else None
        token, plain = issue_token(
            name=name,
            scopes=scopes,
            expires_in_days=expires_days,
            rate_limit=rate_limit,
            company_account_id=account.pk if account else None,
        )
        expiry = token.expires_at.isoformat(timespec="minutes") if token.expires_at else "never"
        tied = f", on account of {account.name!r} (id {account.pk})" if account else ""
        self.stdout.write(f"Issued {token.name!r}: scopes {', '.join(token.scopes)}, expires {expiry}{tied}.")
        self.stdout.write("Store it now; it is not shown again:")
        self.stdout.write(plain)
