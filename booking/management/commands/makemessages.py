"""`make messages` also collects the booking history's messages: `history.said("Refund of {amount} …")`."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=said"]
