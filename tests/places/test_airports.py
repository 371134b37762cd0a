"""Whether a place as written is an airport (places/airports.py): the gazetteer's airports by any of their
names, an airport word or an airport's code where nothing more specific is known; never a hotel, a station
or an ordinary address, whatever it has in common with an airport's name."""

import pytest

from places.airports import airport_codes, is_airport


@pytest.mark.parametrize(
    "text",
    [
        "Flughafen Wien",
        "Flughafen Wien-Schwechat (VIE), Schwechat, Österreich",
        "Vienna International Airport (VIE), Schwechat, Austria",
        "Terminal 3, Vienna Airport",
        "VIE",
        "VIE Terminal 3",
        "Office Park 1, 1300 Wien-Flughafen",
        "Bratislava Airport (BTS)",
        "Letisko M. R. Štefánika",
        "Zürich Airport",
    ],
)
def test_an_airport(text):
    assert is_airport(text)


@pytest.mark.parametrize(
    "text",
    [
        "Hotel Sacher",
        "Hotel Sacher, Philharmoniker Str. 4, 1010 Wien",
        "Airport Hotel Vienna",
        "Moxy Hotel Vienna Airport",
        "Wien Mitte, City Airport Train",
        "Wien Hauptbahnhof",
        "Flughafenstraße 1, 2320 Schwechat",
        "Schwechat",
        "Stephansplatz 1, 1010 Wien",
        "HOLIDAY INN VIENNA",
        "Via Roma 3",
        "",
    ],
)
def test_not_an_airport(text):
    assert not is_airport(text)


def test_the_codes_are_the_gazetteers_airports():
    assert {"VIE", "BTS", "MUC", "PRG"} <= airport_codes() and "INN" not in airport_codes()
