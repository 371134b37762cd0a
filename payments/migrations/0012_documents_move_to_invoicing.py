"""The issued documents leave this app's state for the invoicing app's (invoicing 0001), and a payment on
account points there; the database is not touched: the tables keep their names."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("invoicing", "0001_initial"),
        ("payments", "0011_refund_intent_from_its_payment"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="collectiveinvoiceline",
                    name="booking",
                ),
                migrations.RemoveField(
                    model_name="collectiveinvoiceline",
                    name="invoice",
                ),
                migrations.RemoveField(
                    model_name="creditnote",
                    name="booking",
                ),
                migrations.RemoveField(
                    model_name="creditnote",
                    name="invoice",
                ),
                migrations.RemoveField(
                    model_name="creditnote",
                    name="refund",
                ),
                migrations.DeleteModel(
                    name="CreditNoteYear",
                ),
                migrations.RemoveField(
                    model_name="invoice",
                    name="booking",
                ),
                migrations.RemoveField(
                    model_name="invoice",
                    name="company_account",
                ),
                migrations.RemoveField(
                    model_name="invoice",
                    name="surcharge",
                ),
                migrations.AlterField(
                    model_name="accountpayment",
                    name="invoice",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="account_payments",
                        to="invoicing.invoice",
                        verbose_name="invoice",
                    ),
                ),
                migrations.DeleteModel(
                    name="InvoiceYear",
                ),
                migrations.DeleteModel(
                    name="CollectiveInvoiceLine",
                ),
                migrations.DeleteModel(
                    name="CreditNote",
                ),
                migrations.DeleteModel(
                    name="Invoice",
                ),
            ],
            database_operations=[],
        ),
    ]
