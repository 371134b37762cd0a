"""The documents issued for money: invoices (a ride's, a supplementary one for a charge paid later, a
company's collective invoice for a month), credit notes that correct them, their gapless yearly numbers, and
the rides on a collective invoice. Issued once and never changed (a correction is a credit note). They began
in payments, below which they now sit; their tables keep their `payments_` names (each Meta.db_table), so
the move rewrote no table. A document points at the charge or refund it is for by name ("payments.Surcharge"):
payments records the money and calls this app for its document, never the other way."""

from decimal import Decimal

from django.db import models
from django.utils.translation import gettext_lazy as _

from pricing.money import CURRENCY, from_cents


class InvoiceYear(models.Model):
    """The last invoice number issued in a calendar year (Vienna). Its row is locked (select_for_update) by
    the transaction that issues the next number, so two workers never draw the same one, and a transaction
    that rolls back gives its number back: the numbers stay gapless (invoicing/invoices.py)."""

    year = models.PositiveSmallIntegerField(primary_key=True)
    last_number = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "payments_invoiceyear"

    def __str__(self) -> str:
        return f"{self.year}: {self.last_number}"


class CreditNoteYear(models.Model):
    """The same for credit notes, which are numbered in their own gapless series."""

    year = models.PositiveSmallIntegerField(primary_key=True)
    last_number = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "payments_creditnoteyear"

    def __str__(self) -> str:
        return f"{self.year}: {self.last_number}"


class IssuedInvoiceError(Exception):
    """An issued invoice is a legal record: it is never changed or deleted (a correction is a credit note)."""


class IssuedDocumentQuerySet(models.QuerySet):
    """No bulk change or delete either: the model's own refusal would not see those."""

    def update(self, **kwargs):
        raise IssuedInvoiceError("issued invoices and credit notes cannot be changed")

    def delete(self):
        raise IssuedInvoiceError("issued invoices and credit notes cannot be deleted")

    def remove_past_retention(self) -> int:
        """The one removal: documents whose years of keeping (BAO §132) have passed (privacy/records.py)."""
        return models.QuerySet.delete(self)[0]


class IssuedDocument(models.Model):
    """An invoice or a credit note: its number ("2026-000123": the year, then the year's consecutive
    number), the amounts, and an immutable snapshot of everything printed on it (`content`), from which its
    PDF is rendered. Never changed or deleted once stored."""

    number = models.CharField(_("number"), max_length=20, unique=True, editable=False)
    year = models.PositiveSmallIntegerField(_("year"), editable=False)
    sequence = models.PositiveIntegerField(_("consecutive number"), editable=False)
    issued_at = models.DateTimeField(_("issued at"), editable=False)
    language = models.CharField(_("language"), max_length=2, editable=False)
    net_cents = models.PositiveIntegerField(_("net (cents)"), editable=False)
    vat_cents = models.PositiveIntegerField(_("VAT (cents)"), editable=False)
    gross_cents = models.PositiveIntegerField(_("gross (cents)"), editable=False)
    currency = models.CharField(max_length=3, default=CURRENCY, editable=False)
    content = models.JSONField(_("content"), editable=False, help_text=_("Everything printed on it."))

    objects = IssuedDocumentQuerySet.as_manager()

    class Meta:
        abstract = True
        ordering = ["-year", "-sequence"]

    def __str__(self) -> str:
        return self.number

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise IssuedInvoiceError(f"{self.number} is issued and cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise IssuedInvoiceError(f"{self.number} is issued and cannot be deleted")

    @property
    def gross(self) -> Decimal:
        return from_cents(self.gross_cents)


class Invoice(IssuedDocument):
    """An invoice, issued in the transaction that makes money owed or received (invoicing/invoices.py):
    - a ride's invoice, when its booking becomes paid (one per booking);
    - a supplementary invoice for a price difference, waiting time or no-show fee paid after that (one per
      surcharge);
    - a company's collective invoice for a month's rides on account (one per company and month)."""

    class Kind(models.TextChoices):
        RIDE = "ride", _("ride")
        SUPPLEMENTARY = "supplementary", _("supplementary")
        COLLECTIVE = "collective", _("collective (company, month)")

    kind = models.CharField(_("kind"), max_length=13, choices=Kind.choices, default=Kind.RIDE, editable=False)
    booking = models.ForeignKey(
        "booking.Booking",
        null=True,
        on_delete=models.PROTECT,
        related_name="invoices",
        editable=False,
        verbose_name=_("booking"),
    )
    surcharge = models.OneToOneField(
        "payments.Surcharge",
        null=True,
        on_delete=models.PROTECT,
        related_name="invoice",
        editable=False,
        verbose_name=_("price difference"),
    )
    company_account = models.ForeignKey(
        "business.CompanyAccount",
        null=True,
        on_delete=models.PROTECT,
        related_name="invoices",
        editable=False,
        verbose_name=_("company account"),
    )
    period_start = models.DateField(
        _("month"), null=True, editable=False, help_text=_("Collective invoices.")
    )
    due_on = models.DateField(_("due on"), null=True, editable=False)

    class Meta(IssuedDocument.Meta):
        db_table = "payments_invoice"
        verbose_name, verbose_name_plural = _("invoice"), _("invoices")
        constraints = [
            models.UniqueConstraint(fields=["year", "sequence"], name="one_invoice_per_year_and_number"),
            # One ride invoice per booking (credit notes correct it; they are not invoices).
            models.UniqueConstraint(
                fields=["booking"], condition=models.Q(kind="ride"), name="one_ride_invoice_per_booking"
            ),
            models.UniqueConstraint(
                fields=["company_account", "period_start"],
                condition=models.Q(kind="collective"),
                name="one_collective_invoice_per_account_and_month",
            ),
        ]

    @property
    def file_name(self) -> str:
        return f"{'Rechnung' if self.language == 'de' else 'invoice'}-{self.number}.pdf"


class CreditNote(IssuedDocument):
    """A correction of an invoice (UStG §11 (12): a credit note names the invoice it corrects): money given
    back after a price change, a cancellation (what the fee does not keep) or a refund by staff. Issued when
    the refund is done (invoicing/credit_notes.py), in its own series "G-2026-000001"."""

    class Reason(models.TextChoices):
        REFUND = "refund", _("refund")
        CANCELLATION = "cancellation", _("cancellation")
        PRICE_CHANGE = "price_change", _("price change")

    invoice = models.ForeignKey(
        Invoice,
        on_delete=models.PROTECT,
        related_name="credit_notes",
        editable=False,
        verbose_name=_("invoice"),
    )
    booking = models.ForeignKey(
        "booking.Booking",
        null=True,
        on_delete=models.PROTECT,
        related_name="credit_notes",
        editable=False,
        verbose_name=_("booking"),
    )
    refund = models.OneToOneField(
        "payments.Refund",
        null=True,
        on_delete=models.PROTECT,
        related_name="credit_note",
        editable=False,
        verbose_name=_("refund"),
    )
    reason = models.CharField(_("reason"), max_length=12, choices=Reason.choices, editable=False)

    class Meta(IssuedDocument.Meta):
        db_table = "payments_creditnote"
        verbose_name, verbose_name_plural = _("credit note"), _("credit notes")
        constraints = [
            models.UniqueConstraint(fields=["year", "sequence"], name="one_credit_note_per_year_and_number"),
        ]

    @property
    def file_name(self) -> str:
        return f"{'Gutschrift' if self.language == 'de' else 'credit-note'}-{self.number}.pdf"


class CollectiveInvoiceLine(models.Model):
    """A ride on a company's collective invoice: each booking on account is invoiced once."""

    invoice = models.ForeignKey(
        Invoice, on_delete=models.PROTECT, related_name="lines", verbose_name=_("invoice")
    )
    booking = models.OneToOneField(
        "booking.Booking",
        on_delete=models.PROTECT,
        related_name="collective_invoice_line",
        verbose_name=_("booking"),
    )
    gross_cents = models.PositiveIntegerField(_("gross (cents)"))

    class Meta:
        db_table = "payments_collectiveinvoiceline"
        verbose_name, verbose_name_plural = _("collective invoice line"), _("collective invoice lines")

    def __str__(self) -> str:
        return f"{self.invoice} {self.booking}"
