"""The monthly revenue page of the admin (/admin/revenue/, wired in config/urls.py before the admin's own
URLs, so no model admin of another app needs to host it): a range of months, tables per month × vehicle
class and month × channel with totals, and a bar chart of each month stacked by channel, drawn on the server
as SVG (no script, no inline style: the CSP allows neither). Anyone on the staff who may view bookings may
see it; the booking page shows the same money to them."""

import re
from datetime import date
from decimal import Decimal

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import formats, timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounting import revenue as service
from accounting.revenue import Figures, Revenue
from booking.models import BookingChannel
from booking.presentation import vehicle_name
from pricing.money import round_up
from sitekit import l10n

# The channels as the accountant names them (the booking's own labels say how, not where from).
CHANNEL_NAMES: dict[str, Promise] = {
    BookingChannel.WEBSITE: gettext_lazy("web"),
    BookingChannel.PHONE: gettext_lazy("phone"),
    BookingChannel.AGENT: gettext_lazy("agent"),
    BookingChannel.API: gettext_lazy("API"),
}
FIRST_YEAR, LAST_YEAR = 2000, 2099


def may_see(user) -> bool:
    return user.has_perm("booking.view_booking") or user.has_perm("booking.change_booking")


class MonthField(forms.CharField):
    """A month as the browser's month input sends it (2026-01), or typed where it has none (01.2026)."""

    PATTERNS = (
        re.compile(r"(?P<year>\d{4})-(?P<month>\d{1,2})"),
        re.compile(r"(?P<month>\d{1,2})[./](?P<year>\d{4})"),
    )
    default_error_messages = {
        "invalid": gettext_lazy("Enter a month as YYYY-MM (such as 2026-01) between 2000-01 and 2099-12."),
    }

    def __init__(self, **kwargs):
        super().__init__(widget=forms.TextInput(attrs={"type": "month"}), **kwargs)

    def to_python(self, value) -> date | None:  # type: ignore[override]  # text in, a month's date out
        text = (super().to_python(value) or "").strip()  # CharField's empty value is "" here
        if not text:
            return None
        for pattern in self.PATTERNS:
            if found := pattern.fullmatch(text):
                year, month = int(found["year"]), int(found["month"])
                if FIRST_YEAR <= year <= LAST_YEAR and 1 <= month <= 12:
                    return date(year, month, 1)
        raise forms.ValidationError(self.error_messages["invalid"], code="invalid")


class MonthRangeForm(forms.Form):
    first = MonthField(label=gettext_lazy("From month"))
    last = MonthField(label=gettext_lazy("To month"))

    def clean(self):
        data = super().clean()
        first, last = data.get("first"), data.get("last")
        if first and last:
            if first > last:
                raise forms.ValidationError(_("The first month must not be after the last."), code="order")
            if len(service.months_between(first, last)) > service.MOST_MONTHS:
                raise forms.ValidationError(
                    _("Choose at most %(count)d months at a time.") % {"count": service.MOST_MONTHS},
                    code="too_long",
                )
        return data


def revenue_view(request: HttpRequest) -> HttpResponse:
    if not may_see(request.user):
        raise PermissionDenied
    form = MonthRangeForm({**default_range(timezone.localdate()), **request.GET.dict()})
    context = {
        **admin.site.each_context(request),
        "title": _("Monthly revenue"),
        "form": form,
    }
    if form.is_valid():
        figures = service.monthly_revenue(first=form.cleaned_data["first"], last=form.cleaned_data["last"])
        context |= report(figures)
    return TemplateResponse(request, "admin/accounting/revenue.html", context)


def default_range(today: date) -> dict[str, str]:
    """The last twelve months, this one included."""
    last = today.replace(day=1)
    eleven_before = last.year * 12 + last.month - 1 - 11
    first = date(eleven_before // 12, eleven_before % 12 + 1, 1)
    return {"first": f"{first:%Y-%m}", "last": f"{last:%Y-%m}"}


def shown(figures: Figures) -> dict[str, str]:
    return {
        "rides": formats.number_format(figures.rides, force_grouping=True),
        "received": l10n.money(figures.received),
        "refunded": l10n.money(figures.refunded),
        "gross": l10n.money(figures.gross),
        "net": l10n.money(figures.net),
        "vat": l10n.money(figures.vat),
    }


def month_name(month: date) -> str:
    return formats.date_format(month, "YEAR_MONTH_FORMAT")


def by_month(revenue: Revenue) -> list[dict]:
    """A line per month with money; a run of months without any is one line ("May 2025 – January 2026"),
    so a quiet year is a few lines, not twelve of zeros."""
    lines: list[dict] = []
    for month in revenue.months:
        figures = revenue.by_month.get(month)
        if figures is not None and figures.moved:
            lines.append({"label": month_name(month), "figures": shown(figures)})
        elif lines and lines[-1]["figures"] is None:
            lines[-1]["label"] = f"{lines[-1]['first']} – {month_name(month)}"
        else:
            lines.append({"label": month_name(month), "first": month_name(month), "figures": None})
    return lines


def report(revenue: Revenue) -> dict:
    classes = [(code, vehicle_name(code)) for code in revenue.classes]
    channels = [(code, str(CHANNEL_NAMES.get(code, code))) for code in revenue.channels]
    empty = Figures()

    def table(groups, cells, totals):
        """The months with money, each with the classes or channels that had some (the by-month table
        names the months without)."""
        return {
            "months": [
                {
                    "label": month_name(month),
                    "rows": [
                        (name, shown(cells[month, code]))
                        for code, name in groups
                        if (month, code) in cells and cells[month, code].moved
                    ],
                    "total": shown(revenue.by_month[month]),
                }
                for month in revenue.months
                if month in revenue.by_month and revenue.by_month[month].moved
            ],
            "totals": [(name, shown(totals.get(code, empty))) for code, name in groups],
            "total": shown(revenue.total),
        }

    return {
        "period": _("%(first)s to %(last)s")
        % {"first": month_name(revenue.months[0]), "last": month_name(revenue.months[-1])},
        "by_month": by_month(revenue),
        "total": shown(revenue.total),
        "by_class": table(classes, revenue.by_class, revenue.class_totals),
        "by_channel": table(channels, revenue.by_channel, revenue.channel_totals),
        "chart": chart(revenue, channels),
        "channels": channels,
    }


# The chart's frame in SVG user units (the viewBox scales it to the page's width).
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 960, 360, 110, 10, 12, 40


def chart(revenue: Revenue, channels: list[tuple[str, str]]) -> dict:
    """Bars per month, stacked by channel: takings above the zero line, a month that gave back more than
    it took below it. Geometry only; the template draws it."""
    empty = Figures()
    stacks = [
        [(code, name, revenue.by_channel.get((month, code), empty).gross) for code, name in channels]
        for month in revenue.months
    ]
    top = max([sum((v for *_, v in stack if v > 0), Decimal(0)) for stack in stacks] + [Decimal(0)])
    bottom = min([sum((v for *_, v in stack if v < 0), Decimal(0)) for stack in stacks] + [Decimal(0)])
    step = nice_step(top - bottom)
    top = round_up(top, step) if top or bottom else step
    bottom = -round_up(-bottom, step)
    plot_h, plot_w = HEIGHT - TOP - BOTTOM, WIDTH - LEFT - RIGHT

    def y(value: Decimal) -> float:
        return round(TOP + float((top - value) / (top - bottom)) * plot_h, 1)

    band = plot_w / len(stacks)
    every = max(1, round(len(stacks) / 12))  # at most about twelve month labels
    bars = []
    for index, (month, stack) in enumerate(zip(revenue.months, stacks, strict=True)):
        x = LEFT + index * band
        segments, up, down = [], Decimal(0), Decimal(0)
        for code, name, value in stack:
            if not value:
                continue
            start = up if value > 0 else down
            end = start + value
            up, down = (end, down) if value > 0 else (up, end)
            segments.append(
                {
                    "channel": code,
                    "y": min(y(start), y(end)),
                    "height": max(round(abs(y(start) - y(end)), 1), 0.5),
                    "title": f"{month_name(month)} · {name}: {l10n.money(value)}",
                }
            )
        bars.append(
            {
                "x": round(x + band * 0.15, 1),
                "width": round(band * 0.7, 1),
                "centre": round(x + band / 2, 1),
                "segments": segments,
                "label": formats.date_format(month, "M y") if index % every == 0 else "",
            }
        )
    ticks = []
    value = bottom
    while value <= top:
        ticks.append({"y": y(value), "label": l10n.money(value), "zero": value == 0})
        value += step
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "label_y": HEIGHT - BOTTOM + 18,
        "tick_x": LEFT - 8,
        "bars": bars,
        "ticks": ticks,
    }


def nice_step(span: Decimal) -> Decimal:
    """A round step (1, 2 or 5 times a power of ten, at least 1 euro) that cuts `span` into at most five."""
    step = Decimal(1)
    while span / step > 5:
        for factor in (2, Decimal("2.5"), 2):  # 1 → 2 → 5 → 10
            step *= factor
            if span / step <= 5:
                break
    return step
