"""Phone numbers stored before every door checked them, as typed ("0664 123 45 67", "+43 664/1234567"),
become E.164 as new ones are stored (chauffeur/phones.py): the chauffeur's tap to call and the SMS provider
get one form. A number that is no valid number (letters, markup, too short) is left as it was: the SMS job
never texts it, and staff see it on the booking."""

import re

import phonenumbers
from django.db import migrations

DEFAULT_REGION = "AT"
TYPED = re.compile(r"[0-9+()./\- \u00a0]+")  # what a phone number may hold; letters are no number


def as_e164(typed: str) -> str | None:
    if not TYPED.fullmatch(typed.strip()):
        return None
    try:
        number = phonenumbers.parse(typed.strip(), DEFAULT_REGION)
    except phonenumbers.NumberParseException:
        return None
    if number.extension or not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def normalise(apps, schema_editor):
    bookings = apps.get_model("booking", "Booking")
    for pk, phone in bookings.objects.exclude(phone="").values_list("pk", "phone").iterator():
        stored = as_e164(phone)
        if stored and stored != phone:
            bookings.objects.filter(pk=pk).update(phone=stored)


class Migration(migrations.Migration):
    dependencies = [("booking", "0016_company_account_billing_address_austria_share")]

    operations = [migrations.RunPython(normalise, migrations.RunPython.noop)]
