"""The ledger in the admin: a read-only list of payments (money in), each with the bookings it carries
and what went back to it. Staff record money through the booking's page; nobody edits the ledger here."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from payments.models import Payment, Refund
from sitekit.admin import ReadOnlyAdmin
from sitekit.l10n import money, short


class RefundInline(ReadOnlyAdmin, admin.TabularInline):
    model = Refund
    fields = ("created_at", "amount_cents", "status", "method", "provider_refund_id", "reason")
    readonly_fields = fields
    extra = 0
    verbose_name, verbose_name_plural = _("refund to this payment"), _("refunds to this payment")


@admin.register(Payment)
class PaymentAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("received", "kind", "state", "amount_shown", "bookings_shown", "provider", "recorded_by")
    list_filter = ("kind", "state", "provider")
    search_fields = ("payment_intent_id", "provider_session_id", "shares__booking__reference")
    list_select_related = ("recorded_by",)
    fields = (
        "kind",
        "state",
        "amount_cents",
        "currency",
        "provider",
        "provider_session_id",
        "payment_intent_id",
        "surcharge",
        "recorded_by",
        "created_at",
        "received_at",
        "bookings_shown",
    )
    readonly_fields = fields
    inlines = [RefundInline]
    ordering = ("-received_at", "-pk")

    @admin.display(description=_("received"), ordering="received_at")
    def received(self, payment: Payment) -> str:
        return short(payment.received_at) if payment.received_at else "—"

    @admin.display(description=_("amount"), ordering="amount_cents")
    def amount_shown(self, payment: Payment) -> str:
        return money(payment.amount, payment.currency)

    @admin.display(description=_("bookings"))
    def bookings_shown(self, payment: Payment) -> str:
        return format_html_join(
            ", ",
            '<a href="{}">{}</a> ({})',
            (
                (
                    reverse("admin:booking_booking_change", args=[share.booking_id]),
                    share.booking.reference,
                    money(share.amount, payment.currency),
                )
                for share in payment.shares.select_related("booking")
            ),
        ) or format_html("—")
