from django.core.management.base import BaseCommand, CommandError

from config.roles import ROLES, ensure_roles


class Command(BaseCommand):
    help = (
        "Create the staff guide's roles as groups (Viewer, Dispatcher, Accountant, Token manager), or reset "
        "them to their documented permissions. Add users to them under Authentication and Authorization."
    )

    def handle(self, *args, **options):
        try:
            created = ensure_roles()
        except LookupError as missing:
            raise CommandError(f"{missing}. Run `manage.py migrate` first.") from missing
        for name, new in created.items():
            self.stdout.write(f"{'Created' if new else 'Reset'} {name!r}: {len(ROLES[name])} permissions.")
