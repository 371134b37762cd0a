# English dates in the day-month order of Europe, with a 24-hour clock: "1 December 2026, 10:00".
DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, H:i"
SHORT_DATETIME_FORMAT = "d/m/Y, H:i"
