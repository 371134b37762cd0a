import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dispatch", "0005_change_quote_ride"),
    ]

    operations = [
        migrations.AddField(
            model_name="ridedaypolicy",
            name="flight_buffer_baggage_minutes",
            field=models.PositiveIntegerField(
                default=15,
                help_text="Added when the booking has suitcases (baggage reclaim).",
                validators=[django.core.validators.MaxValueValidator(360)],
                verbose_name="more with luggage (minutes)",
            ),
        ),
        migrations.AddField(
            model_name="ridedaypolicy",
            name="flight_buffer_other_minutes",
            field=models.PositiveIntegerField(
                default=30,
                help_text="The same with passport control (also when the flight's origin is not known).",
                validators=[django.core.validators.MaxValueValidator(360)],
                verbose_name="after a landing from outside the Schengen area (minutes)",
            ),
        ),
        migrations.AddField(
            model_name="ridedaypolicy",
            name="flight_buffer_schengen_minutes",
            field=models.PositiveIntegerField(
                default=15,
                help_text="A pickup that meets a flight follows its landing: this long after it, without passport control.",
                validators=[django.core.validators.MaxValueValidator(360)],
                verbose_name="after a landing from the Schengen area (minutes)",
            ),
        ),
    ]
