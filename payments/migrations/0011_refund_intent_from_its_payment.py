"""A refund no longer copies the payment intent it goes back to: it is its payment's
(`refund.payment.payment_intent_id`, through the provider only). Before the ledger a blank one meant "the
booking's own", which is the payment the ledger's rows point it at. Backwards, each refund through the
provider gets its payment's intent written out again."""

from django.db import migrations


def written_out(apps, schema_editor):
    Refund = apps.get_model("payments", "Refund")
    for refund in Refund.objects.filter(method="provider", payment__isnull=False).select_related("payment"):
        refund.payment_intent_id = refund.payment.payment_intent_id
        refund.save(update_fields=["payment_intent_id"])


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0010_checkout_pages_in_the_ledger"),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, written_out),
        migrations.RemoveField(
            model_name="refund",
            name="payment_intent_id",
        ),
    ]
