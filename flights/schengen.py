"""The Schengen area's countries (ISO 3166 alpha-2): a flight from one of them lands without passport
control at Vienna, so its travellers are out sooner."""

SCHENGEN = frozenset(
    {
        "AT",
        "BE",
        "BG",
        "CH",
        "CZ",
        "DE",
        "DK",
        "EE",
        "ES",
        "FI",
        "FR",
        "GR",
        "HR",
        "HU",
        "IS",
        "IT",
        "LI",
        "LT",
        "LU",
        "LV",
        "MT",
        "NL",
        "NO",
        "PL",
        "PT",
        "RO",
        "SE",
        "SI",
        "SK",
    }
)


def from_schengen(country: str) -> bool | None:
    """None when the country is not known."""
    return None if not country else country.upper() in SCHENGEN
