# German dates as travellers read them: "1. Dezember 2026, 10:00" (Django's own lacks the comma).
DATE_FORMAT = "j. F Y"
DATETIME_FORMAT = "j. F Y, H:i"
SHORT_DATETIME_FORMAT = "d.m.Y, H:i"
