"""A booking keeps its price as a quote record in the engine's own names (pricing.quote.Quote.as_record)
instead of the API's camelCase price output; stored prices are converted, none is lost."""

from decimal import Decimal

from django.db import migrations, models

API_TO_RECORD = {"priceEur": "price", "netEur": "net", "vatEur": "vat", "vatRate": "vat_rate"}


def exact(value) -> str:
    return str(Decimal(str(value)))


def to_record(price: dict) -> dict:
    record = {name: exact(price[api]) for api, name in API_TO_RECORD.items()}
    record["vat_rate"] = exact(Decimal(record["vat_rate"]).quantize(Decimal("0.001")))
    record.update(
        currency=price.get("currency", "EUR"),
        vehicle_class=price["vehicleClass"],
        booking_type=price["bookingType"],
        lines=[
            {"code": line["code"], "label": line["label"], "amount": exact(line["amountEur"])}
            for line in price["lines"]
        ],
    )
    return record


def to_price(record: dict) -> dict:
    price = {api: record[name] for api, name in API_TO_RECORD.items()}
    price.update(
        currency=record["currency"],
        vehicleClass=record["vehicle_class"],
        bookingType=record["booking_type"],
        lines=[
            {"code": line["code"], "label": line["label"], "amountEur": line["amount"]}
            for line in record["lines"]
        ],
    )
    return price


def forwards(apps, schema_editor):
    bookings = apps.get_model("booking", "Booking")
    for booking in bookings.objects.only("pk", "price").iterator():
        bookings.objects.filter(pk=booking.pk).update(quote_record=to_record(booking.price))


def backwards(apps, schema_editor):
    bookings = apps.get_model("booking", "Booking")
    for booking in bookings.objects.only("pk", "quote_record").iterator():
        bookings.objects.filter(pk=booking.pk).update(price=to_price(booking.quote_record))


class Migration(migrations.Migration):
    dependencies = [("booking", "0003_booking_processedpaymentevent")]

    operations = [
        migrations.AddField(
            model_name="booking",
            name="quote_record",
            field=models.JSONField(null=True, verbose_name="quote"),
        ),
        migrations.AlterField(model_name="booking", name="price", field=models.JSONField(null=True)),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="booking", name="price"),
        migrations.AlterField(
            model_name="booking",
            name="quote_record",
            field=models.JSONField(
                help_text="The server's price: gross, net, VAT and lines (pricing.quote.Quote.as_record).",
                verbose_name="quote",
            ),
        ),
    ]
