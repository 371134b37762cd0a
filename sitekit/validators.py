"""Validators every app's forms share."""

from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

# Text that goes into a mail header, an invoice's address block or a legal text's line: a line break there
# would end the header or split the block. Control characters and Unicode line separators too.
CONTROL_CHARACTERS = r"[\x00-\x1f\x7f-\x9f\u2028\u2029]"
one_line = RegexValidator(
    CONTROL_CHARACTERS,
    _("Enter it on one line, without line breaks or control characters."),
    code="control_characters",
    inverse_match=True,
)
