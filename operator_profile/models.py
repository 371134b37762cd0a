"""The operator's public face: name, contacts, logo and colours on every page and e-mail, and the legal
details an Austrian business site and its invoices must name (§5 ECG, §25 MedienG). One record, edited in
the admin (seeded by a data migration). Beside it the legal texts (imprint, terms, privacy notice), each
kept in published versions."""

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from operator_profile.colours import HEX_COLOUR, MIN_TEXT_CONTRAST, WHITE, contrast
from sitekit.validators import CONTROL_CHARACTERS as CONTROL_CHARACTERS  # where mails and sign-in read it
from sitekit.validators import one_line

PROFILE_ID = 1
hex_colour = RegexValidator(HEX_COLOUR, _("Enter a colour as #rrggbb, e.g. #0b4f6c."))
vat_id_format = RegexValidator(
    r"^[A-Z]{2}[0-9A-Z]{2,13}$", _("Enter the VAT id without spaces, e.g. ATU12345678.")
)
# Where the operator may be seated: the German-speaking countries and Austria's neighbours.
COUNTRIES = [
    ("AT", _("Austria")),
    ("DE", _("Germany")),
    ("CH", _("Switzerland")),
    ("LI", _("Liechtenstein")),
    ("IT", _("Italy")),
    ("SI", _("Slovenia")),
    ("HU", _("Hungary")),
    ("SK", _("Slovakia")),
    ("CZ", _("Czechia")),
]


def readable_on_white(colour: str) -> None:
    """Buttons and links use the brand colour on white pages, with white text on its buttons."""
    if HEX_COLOUR.match(colour) and contrast(colour, WHITE) < MIN_TEXT_CONTRAST:
        raise ValidationError(
            _(
                "%(colour)s is too light to read on white (%(contrast).1f:1; at least %(minimum)s:1 is "
                "needed). Choose a darker shade."
            )
            % {"colour": colour, "contrast": contrast(colour, WHITE), "minimum": MIN_TEXT_CONTRAST}
        )


# The operator's register entry, VAT id and trade details: placeholders of the legal texts, and among the
# legal details staff edit in the admin.
REGISTER_DETAILS = (
    "company_register_number",
    "company_register_court",
    "vat_id",
    "supervisory_authority",
    "chamber",
    "trade_regulations",
    "business_purpose",
)


class OperatorProfile(models.Model):
    # The name and the address go into every mail's From and Reply-To headers (sitekit/validators.py).
    name = models.CharField(
        _("name"), max_length=100, validators=[one_line], help_text=_("The company name travellers see.")
    )
    phone = models.CharField(
        _("phone"),
        max_length=40,
        blank=True,
        validators=[one_line],
        help_text=_("E.g. +43 1 234 56 78; shown on every page."),
    )
    email = models.EmailField(
        _("e-mail"),
        blank=True,
        validators=[one_line],
        help_text=_("Shown to travellers; replies to booking e-mails go to this address."),
    )
    website = models.URLField(
        _("website"), blank=True, help_text=_("The company's own website, linked from every page.")
    )
    logo = models.BinaryField(null=True, blank=True, editable=False)
    logo_type = models.CharField(max_length=20, blank=True, editable=False)  # its media type
    brand_colour = models.CharField(
        _("brand colour"),
        max_length=7,
        default="#0b4f6c",
        validators=[hex_colour, readable_on_white],
        help_text=_("Buttons, links and focus outlines (must read on white)."),
    )
    header_colour = models.CharField(
        _("header colour"),
        max_length=7,
        default="#10232f",
        validators=[hex_colour],
        help_text=_("The page header's background (its text turns white or dark to stay readable)."),
    )
    # The legal details (imprint, invoices); blank until staff fill them in: the pages then say so. Each on
    # one line: a line break would split the invoice's seller block and the legal texts' lines.
    legal_name = models.CharField(
        _("legal name"),
        max_length=200,
        blank=True,
        help_text=_("As registered, e.g. Wiener Chauffeur GmbH."),
        validators=[one_line],
    )
    street_address = models.CharField(
        _("street and number"), max_length=200, blank=True, validators=[one_line]
    )
    postcode = models.CharField(_("postcode"), max_length=12, blank=True, validators=[one_line])
    city = models.CharField(_("city"), max_length=100, blank=True, default="Wien", validators=[one_line])
    country = models.CharField(_("country"), max_length=2, choices=COUNTRIES, default="AT")
    company_register_number = models.CharField(
        _("company register number"),
        max_length=40,
        blank=True,
        help_text=_("Firmenbuchnummer, e.g. FN 123456a."),
        validators=[one_line],
    )
    company_register_court = models.CharField(
        _("company register court"),
        max_length=100,
        blank=True,
        help_text=_("E.g. Handelsgericht Wien."),
        validators=[one_line],
    )
    vat_id = models.CharField(
        _("VAT id (UID)"),
        max_length=20,
        blank=True,
        validators=[one_line, vat_id_format],
        help_text=_("E.g. ATU12345678."),
    )
    # Where companies on account transfer their collective invoice.
    iban = models.CharField(
        _("IBAN"),
        max_length=34,
        blank=True,
        help_text=_("Printed on invoices on account."),
        validators=[one_line],
    )
    bic = models.CharField(_("BIC"), max_length=11, blank=True, validators=[one_line])
    # How the part of a cross-border ride driven outside Austria is taxed (docs/operations/invoices.md).
    foreign_route_vat = models.CharField(
        _("VAT on the route abroad"),
        max_length=12,
        choices=[
            ("whole", _("Austrian VAT on the whole ride")),
            (
                "austria_only",
                _("Austrian VAT on the Austrian share only; the part abroad without Austrian VAT"),
            ),
        ],
        default="whole",
        help_text=_("Ask your tax adviser (UStG §3a (10): passenger transport is taxed where it is driven)."),
    )
    supervisory_authority = models.CharField(
        _("supervisory authority"),
        max_length=200,
        blank=True,
        validators=[one_line],
        help_text=_("The trade authority, e.g. Magistratisches Bezirksamt für den 1. Bezirk."),
    )
    chamber = models.CharField(
        _("chamber membership"),
        max_length=200,
        blank=True,
        validators=[one_line],
        help_text=_("E.g. Wirtschaftskammer Wien, Fachgruppe der Personenbeförderungsgewerbe mit PKW."),
    )
    trade_regulations = models.CharField(
        _("applicable trade law"),
        max_length=300,
        blank=True,
        validators=[one_line],
        default="Gewerbeordnung 1994, Gelegenheitsverkehrs-Gesetz 1996: www.ris.bka.gv.at",
    )
    business_purpose = models.CharField(
        _("business purpose"),
        max_length=200,
        blank=True,
        validators=[one_line],
        default="Personenbeförderung mit Personenkraftwagen",
        help_text=_("What the company does (§25 MedienG)."),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = verbose_name_plural = _("operator profile")
        constraints = [models.CheckConstraint(condition=models.Q(id=PROFILE_ID), name="one_operator_profile")]

    def __str__(self) -> str:
        return self.name


class LegalText(models.Model):
    """One version of a legal text in German and English. A draft is edited freely; publishing gives it the
    next version number and freezes it, so a booking can always show the terms it accepted. The page shows
    the newest published version of its kind. `{legal_name}`, `{address}` … in a text are filled from the
    operator profile (operator_profile/legal.py lists them)."""

    class Kind(models.TextChoices):
        IMPRINT = "imprint", _("Imprint")
        TERMS = "terms", _("Terms and conditions")
        PRIVACY = "privacy", _("Privacy notice")
        ACCESSIBILITY = "accessibility", _("Accessibility statement")

    kind = models.CharField(_("text"), max_length=20, choices=Kind.choices)
    version = models.PositiveIntegerField(_("version"), null=True, blank=True, editable=False)
    body_de = models.TextField(_("German text"))
    body_en = models.TextField(_("English text"))
    published_at = models.DateTimeField(_("published"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("legal text")
        verbose_name_plural = _("legal texts")
        ordering = ["kind", "-version", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "version"], name="one_legal_text_per_kind_and_version"),
            models.CheckConstraint(
                condition=models.Q(version__isnull=True, published_at__isnull=True)
                | models.Q(version__isnull=False, published_at__isnull=False),
                name="published_legal_texts_have_a_version",
            ),
        ]

    def __str__(self) -> str:
        if self.version is None:
            return f"{self.get_kind_display()} ({_('draft')})"
        return f"{self.get_kind_display()} {self.version}"

    @property
    def published(self) -> bool:
        return self.published_at is not None
