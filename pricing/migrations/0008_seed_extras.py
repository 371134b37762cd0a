"""Seed a catalogue of extras staff adapt in the admin: the child seats by age group, a name sign at
arrivals and bulky luggage."""

from decimal import Decimal as D

from django.db import migrations

EXTRAS = [
    # code, English, German, price, per piece, most per ride, child seat, the vehicle must carry it
    ("infant-carrier", "Infant carrier", "Babyschale", D("10.00"), True, 2, "infant_carrier", True),
    ("child-seat", "Child seat", "Kindersitz", D("10.00"), True, 2, "child_seat", True),
    ("booster-seat", "Booster seat", "Sitzerhöhung", D("5.00"), True, 2, "booster", True),
    ("name-sign", "Name sign at arrivals", "Namensschild bei der Ankunft", D("15.00"), False, 1, "", False),
    (
        "bulky-luggage",
        "Bulky luggage (skis, golf bag, bicycle)",
        "Sperrgepäck (Ski, Golfbag, Fahrrad)",
        D("10.00"),
        True,
        1,
        "",
        False,
    ),
]
# the van seats seven: more child seats and bulky luggage fit
VAN_MAXIMA = {"child-seat": 3, "booster-seat": 3, "bulky-luggage": 3}


def seed(apps, schema_editor):
    Extra = apps.get_model("pricing", "Extra")
    ExtraLimit = apps.get_model("pricing", "ExtraLimit")
    VehicleClass = apps.get_model("pricing", "VehicleClass")
    van = VehicleClass.objects.filter(code="business-van").first()
    for order, (code, name_en, name_de, price, per_piece, maximum, child_seat, must_carry) in enumerate(
        EXTRAS
    ):
        extra, created = Extra.objects.get_or_create(
            code=code,
            defaults=dict(
                name_en=name_en,
                name_de=name_de,
                price=price,
                per_piece=per_piece,
                maximum=maximum,
                child_seat=child_seat,
                vehicle_must_carry=must_carry,
                order=order + 1,
            ),
        )
        if created and van is not None and code in VAN_MAXIMA:
            ExtraLimit.objects.create(extra=extra, vehicle_class=van, maximum=VAN_MAXIMA[code])


class Migration(migrations.Migration):
    dependencies = [("pricing", "0007_extras")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
