"""The customer's billing details on an invoice (UStG §11: their address above €400, their UID above
€10,000): a free address of a few lines and a VAT id in the format of its EU country."""

import re

MAX_ADDRESS_LENGTH = 300  # characters: a company's name and postal address on a few lines

# The VAT identification numbers of the EU (and Northern Ireland), as the Commission's VIES lists their
# formats: the country prefix, then its own pattern. Austria's: ATU and eight digits.
VAT_ID_FORMATS = {
    "AT": r"U\d{8}",
    "BE": r"[01]\d{9}",
    "BG": r"\d{9,10}",
    "CY": r"\d{8}[A-Z]",
    "CZ": r"\d{8,10}",
    "DE": r"\d{9}",
    "DK": r"\d{8}",
    "EE": r"\d{9}",
    "EL": r"\d{9}",
    "ES": r"[A-Z0-9]\d{7}[A-Z0-9]",
    "FI": r"\d{8}",
    "FR": r"[A-Z0-9]{2}\d{9}",
    "HR": r"\d{11}",
    "HU": r"\d{8}",
    "IE": r"\d[A-Z0-9+*]\d{5}[A-Z]{1,2}",
    "IT": r"\d{11}",
    "LT": r"\d{9}|\d{12}",
    "LU": r"\d{8}",
    "LV": r"\d{11}",
    "MT": r"\d{8}",
    "NL": r"\d{9}B\d{2}",
    "PL": r"\d{10}",
    "PT": r"\d{9}",
    "RO": r"\d{2,10}",
    "SE": r"\d{12}",
    "SI": r"\d{8}",
    "SK": r"\d{10}",
    "XI": r"\d{9}|\d{12}|GD\d{3}|HA\d{3}",
}


# What people type between the characters of an id, and around it: spaces, dots, hyphens, line ends.
SEPARATOR = r"[-. \t\n\r\u00a0\u2009\u202f]"
_ATOM = re.compile(r"(\\d|\[[^\]]+\]|[A-Z])(\{\d+(?:,\d+)?\})?")


def _typed(pattern: str) -> str:
    """A format as typed: separators before each character, letters in either case."""

    def atom(found: re.Match) -> str:
        character = "[0-9]" if found[1] == r"\d" else found[1]  # ASCII digits: JSON Schema's \d, not Python's
        if character.isalpha():
            character = f"[{character}{character.lower()}]"
        elif character.startswith("["):
            character = character.replace("A-Z", "A-Za-z")
        return f"(?:{SEPARATOR}*{character}){found[2] or ''}"

    return "|".join(_ATOM.sub(atom, alternative) for alternative in pattern.split("|"))


# Every id of the table as it may be typed, in the regex dialect JSON Schema and Python share: the OpenAPI
# document states it, and a value it allows is one the server accepts.
VAT_ID_PATTERN = (
    "^(?:(?:"
    + "|".join(f"{_typed(country)}(?:{_typed(pattern)})" for country, pattern in VAT_ID_FORMATS.items())
    + f"){SEPARATOR}*|{SEPARATOR}+)$"  # or separators only: none given
)


def normalised_vat_id(text: str) -> str:
    """The id as printed: upper case, without the spaces, dots and hyphens people type."""
    return re.sub(SEPARATOR, "", text or "").upper()


def valid_vat_id(text: str) -> bool:
    return re.fullmatch(VAT_ID_PATTERN.removeprefix("^").removesuffix("$"), text or "") is not None
