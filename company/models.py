"""The operator's public face: name, contacts, logo and colours on every page and e-mail. One record,
edited in the admin (seeded by a data migration)."""

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from company.colours import HEX_COLOUR, MIN_TEXT_CONTRAST, WHITE, contrast

PROFILE_ID = 1
hex_colour = RegexValidator(HEX_COLOUR, _("Enter a colour as #rrggbb, e.g. #0b4f6c."))
# The name and the address go into every mail's From and Reply-To headers: a line break there would end the
# header (Django then refuses to send any mail at all). Control characters and Unicode line separators too.
CONTROL_CHARACTERS = r"[\x00-\x1f\x7f-\x9f\u2028\u2029]"
one_line = RegexValidator(
    CONTROL_CHARACTERS,
    _("Enter it on one line, without line breaks or control characters."),
    code="control_characters",
    inverse_match=True,
)


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


class OperatorProfile(models.Model):
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
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = verbose_name_plural = _("operator profile")
        constraints = [models.CheckConstraint(condition=models.Q(id=PROFILE_ID), name="one_operator_profile")]

    def __str__(self) -> str:
        return self.name
