"""The documents issued for money move here from the payments app: invoices, credit notes, their yearly
counters and the rides on collective invoices enter this app's state without touching the database (their
tables keep their payments_ names, set in each Meta.db_table); payments 0010 takes them out of its state."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("booking", "0020_money_in_the_ledger"),
        ("business", "0001_initial"),
        ("payments", "0011_refund_intent_from_its_payment"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="CreditNoteYear",
                    fields=[
                        ("year", models.PositiveSmallIntegerField(primary_key=True, serialize=False)),
                        ("last_number", models.PositiveIntegerField(default=0)),
                    ],
                    options={
                        "db_table": "payments_creditnoteyear",
                    },
                ),
                migrations.CreateModel(
                    name="InvoiceYear",
                    fields=[
                        ("year", models.PositiveSmallIntegerField(primary_key=True, serialize=False)),
                        ("last_number", models.PositiveIntegerField(default=0)),
                    ],
                    options={
                        "db_table": "payments_invoiceyear",
                    },
                ),
                migrations.CreateModel(
                    name="Invoice",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "number",
                            models.CharField(
                                editable=False, max_length=20, unique=True, verbose_name="number"
                            ),
                        ),
                        ("year", models.PositiveSmallIntegerField(editable=False, verbose_name="year")),
                        (
                            "sequence",
                            models.PositiveIntegerField(editable=False, verbose_name="consecutive number"),
                        ),
                        ("issued_at", models.DateTimeField(editable=False, verbose_name="issued at")),
                        ("language", models.CharField(editable=False, max_length=2, verbose_name="language")),
                        (
                            "net_cents",
                            models.PositiveIntegerField(editable=False, verbose_name="net (cents)"),
                        ),
                        (
                            "vat_cents",
                            models.PositiveIntegerField(editable=False, verbose_name="VAT (cents)"),
                        ),
                        (
                            "gross_cents",
                            models.PositiveIntegerField(editable=False, verbose_name="gross (cents)"),
                        ),
                        ("currency", models.CharField(default="EUR", editable=False, max_length=3)),
                        (
                            "content",
                            models.JSONField(
                                editable=False, help_text="Everything printed on it.", verbose_name="content"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("ride", "ride"),
                                    ("supplementary", "supplementary"),
                                    ("collective", "collective (company, month)"),
                                ],
                                default="ride",
                                editable=False,
                                max_length=13,
                                verbose_name="kind",
                            ),
                        ),
                        (
                            "period_start",
                            models.DateField(
                                editable=False,
                                help_text="Collective invoices.",
                                null=True,
                                verbose_name="month",
                            ),
                        ),
                        ("due_on", models.DateField(editable=False, null=True, verbose_name="due on")),
                        (
                            "booking",
                            models.ForeignKey(
                                editable=False,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="invoices",
                                to="booking.booking",
                                verbose_name="booking",
                            ),
                        ),
                        (
                            "company_account",
                            models.ForeignKey(
                                editable=False,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="invoices",
                                to="business.companyaccount",
                                verbose_name="company account",
                            ),
                        ),
                        (
                            "surcharge",
                            models.OneToOneField(
                                editable=False,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="invoice",
                                to="payments.surcharge",
                                verbose_name="price difference",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "invoice",
                        "verbose_name_plural": "invoices",
                        "db_table": "payments_invoice",
                        "ordering": ["-year", "-sequence"],
                        "abstract": False,
                    },
                ),
                migrations.CreateModel(
                    name="CreditNote",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "number",
                            models.CharField(
                                editable=False, max_length=20, unique=True, verbose_name="number"
                            ),
                        ),
                        ("year", models.PositiveSmallIntegerField(editable=False, verbose_name="year")),
                        (
                            "sequence",
                            models.PositiveIntegerField(editable=False, verbose_name="consecutive number"),
                        ),
                        ("issued_at", models.DateTimeField(editable=False, verbose_name="issued at")),
                        ("language", models.CharField(editable=False, max_length=2, verbose_name="language")),
                        (
                            "net_cents",
                            models.PositiveIntegerField(editable=False, verbose_name="net (cents)"),
                        ),
                        (
                            "vat_cents",
                            models.PositiveIntegerField(editable=False, verbose_name="VAT (cents)"),
                        ),
                        (
                            "gross_cents",
                            models.PositiveIntegerField(editable=False, verbose_name="gross (cents)"),
                        ),
                        ("currency", models.CharField(default="EUR", editable=False, max_length=3)),
                        (
                            "content",
                            models.JSONField(
                                editable=False, help_text="Everything printed on it.", verbose_name="content"
                            ),
                        ),
                        (
                            "reason",
                            models.CharField(
                                choices=[
                                    ("refund", "refund"),
                                    ("cancellation", "cancellation"),
                                    ("price_change", "price change"),
                                ],
                                editable=False,
                                max_length=12,
                                verbose_name="reason",
                            ),
                        ),
                        (
                            "booking",
                            models.ForeignKey(
                                editable=False,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="credit_notes",
                                to="booking.booking",
                                verbose_name="booking",
                            ),
                        ),
                        (
                            "refund",
                            models.OneToOneField(
                                editable=False,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="credit_note",
                                to="payments.refund",
                                verbose_name="refund",
                            ),
                        ),
                        (
                            "invoice",
                            models.ForeignKey(
                                editable=False,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="credit_notes",
                                to="invoicing.invoice",
                                verbose_name="invoice",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "credit note",
                        "verbose_name_plural": "credit notes",
                        "db_table": "payments_creditnote",
                        "ordering": ["-year", "-sequence"],
                        "abstract": False,
                    },
                ),
                migrations.CreateModel(
                    name="CollectiveInvoiceLine",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("gross_cents", models.PositiveIntegerField(verbose_name="gross (cents)")),
                        (
                            "booking",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="collective_invoice_line",
                                to="booking.booking",
                                verbose_name="booking",
                            ),
                        ),
                        (
                            "invoice",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="lines",
                                to="invoicing.invoice",
                                verbose_name="invoice",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "collective invoice line",
                        "verbose_name_plural": "collective invoice lines",
                        "db_table": "payments_collectiveinvoiceline",
                    },
                ),
                migrations.AddConstraint(
                    model_name="invoice",
                    constraint=models.UniqueConstraint(
                        fields=("year", "sequence"), name="one_invoice_per_year_and_number"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="invoice",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("kind", "ride")),
                        fields=("booking",),
                        name="one_ride_invoice_per_booking",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="invoice",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("kind", "collective")),
                        fields=("company_account", "period_start"),
                        name="one_collective_invoice_per_account_and_month",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="creditnote",
                    constraint=models.UniqueConstraint(
                        fields=("year", "sequence"), name="one_credit_note_per_year_and_number"
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
