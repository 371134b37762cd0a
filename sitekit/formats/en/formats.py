"""English as Vienna writes it: day before month and a 24-hour clock. Travellers read "1 December 2026,
10:00" on pages and in e-mails; staff get the compact 23.11.2026 16:41 in the admin's lists and forms,
weeks from Monday. Numbers keep the English separators."""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "d.m.Y"
SHORT_DATETIME_FORMAT = "d.m.Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday
# The first of each is how forms show a value; ISO 8601 is accepted too.
DATE_INPUT_FORMATS = ["%d.%m.%Y", "%Y-%m-%d"]
TIME_INPUT_FORMATS = ["%H:%M", "%H:%M:%S"]
DATETIME_INPUT_FORMATS = ["%d.%m.%Y %H:%M", "%d.%m.%Y %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"]
