"""Business customers: companies that book rides on account and get one collective invoice a
month instead of paying each ride (docs/operations/business.md)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from operator_profile.models import COUNTRIES


class EInvoiceFormat(models.TextChoices):
    """The structured invoice a company's accounts system reads, sent and kept with each PDF."""

    NONE = "", _("none (PDF only)")
    FACTUR_X = "factur-x", _("Factur-X / ZUGFeRD (PDF/A-3 with EN 16931 data)")
    XRECHNUNG = "xrechnung", _("XRechnung (UBL XML, EN 16931)")
    EBINTERFACE = "ebinterface", _("ebInterface 6.1 (Austrian public bodies)")


class CompanyAccount(models.Model):
    """A company that books on account: who may book on it (`bookers`), where its invoice goes, and how
    long it has to pay."""

    name = models.CharField(_("company name"), max_length=200)
    street_address = models.CharField(_("street address"), max_length=200)
    postcode = models.CharField(_("postcode"), max_length=20)
    city = models.CharField(_("city"), max_length=100)
    country = models.CharField(_("country"), max_length=2, choices=COUNTRIES, default="AT")
    vat_id = models.CharField(
        _("VAT id (UID)"), max_length=20, blank=True, help_text=_("Required on invoices above €10,000.")
    )
    billing_email = models.EmailField(_("billing e-mail"))
    payment_terms_days = models.PositiveSmallIntegerField(
        _("payment terms (days)"), default=14, help_text=_("Days from the invoice date to its due date.")
    )
    bookers = models.TextField(
        _("who may book"),
        blank=True,
        help_text=_("One per line: an e-mail address (anna@example.com) or a whole domain (@example.com)."),
    )
    e_invoice_format = models.CharField(
        _("e-invoice"),
        max_length=11,
        choices=EInvoiceFormat.choices,
        default=EInvoiceFormat.NONE,
        db_default=EInvoiceFormat.NONE,  # rows written without it (raw SQL, code of the release before)
        blank=True,
        help_text=_(
            "Every invoice and credit note also in this format, mailed and downloadable with its PDF."
        ),
    )
    buyer_reference = models.CharField(
        _("buyer reference"),
        max_length=100,
        blank=True,
        db_default="",
        help_text=_(
            "What the company's invoices must quote: a Leitweg-ID (XRechnung), an order reference "
            "(ebInterface for federal bodies). Empty: the booking reference or the invoice number."
        ),
    )
    supplier_number = models.CharField(
        _("our supplier number"),
        max_length=100,
        blank=True,
        db_default="",
        help_text=_("The number the company knows us by, where its e-invoices must quote it (ebInterface)."),
    )
    language = models.CharField(
        _("invoice language"), max_length=2, choices=[("de", _("German")), ("en", _("English"))], default="de"
    )
    active = models.BooleanField(
        _("active"), default=True, help_text=_("Inactive: no new bookings on account.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name, verbose_name_plural = _("company account"), _("company accounts")

    def __str__(self) -> str:
        return self.name

    def allows(self, email: str) -> bool:
        """Whether this e-mail address may book on the account (case-insensitive; a line "@example.com"
        allows every address of that domain, not its subdomains)."""
        address = (email or "").strip().lower()
        if "@" not in address:
            return False
        domain = "@" + address.rsplit("@", 1)[1]
        for line in self.bookers.splitlines():
            entry = line.strip().lower()
            if entry and (entry == address or (entry.startswith("@") and entry == domain)):
                return True
        return False
