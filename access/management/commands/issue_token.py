from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from access.models import Scope
from access.tokens import issue_token


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

    def handle(self, *args, name, scopes, expires_days, rate_limit, **options):
        if expires_days is not None and expires_days < 1:
            raise CommandError("--expires-days must be at least 1.")
        if rate_limit is not None and rate_limit < 1:
            raise CommandError("--rate-limit must be at least 1.")
        token, plain = issue_token(
            name=name, scopes=scopes, expires_in_days=expires_days, rate_limit=rate_limit
        )
        expiry = token.expires_at.isoformat(timespec="minutes") if token.expires_at else "never"
        self.stdout.write(f"Issued {token.name!r}: scopes {', '.join(token.scopes)}, expires {expiry}.")
        self.stdout.write("Store it now; it is not shown again:")
        self.stdout.write(plain)
