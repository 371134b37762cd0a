import sys
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from accounting import export as service


def day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"not a day as YYYY-MM-DD: {text!r}") from None


class Command(BaseCommand):
    help = (
        "Write a period's invoices, credit notes, payments and refunds (Vienna days, both included) as a BMD "
        "NTCS import file (docs/operations/accounting-export.md), to --output or to standard output."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first", required=True, help="first day, YYYY-MM-DD")
        parser.add_argument("--to", dest="last", required=True, help="last day, YYYY-MM-DD")
        parser.add_argument("--output", help="the file to write (default: standard output)")

    def handle(self, *args, first, last, output, **options):
        first, last = day(first), day(last)
        if first > last:
            raise CommandError("--from is after --to")
        try:
            found = service.entries(first=first, last=last)
        except service.UnknownVatRate as error:
            raise CommandError(str(error)) from None
        if output:
            with open(output, "wb") as target:
                target.writelines(service.lines(found))
            self.stderr.write(f"Wrote {len(found)} booking line(s) to {output}.")
        else:
            sys.stdout.buffer.writelines(service.lines(found))
            sys.stdout.flush()
