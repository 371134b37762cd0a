"""Quote requests in the back office: the open ones first; staff read the trip and answer it with an offer
(its lines, the class, until when it holds; "Send the offer" mails it) or by e-mail or phone, marking the
request answered or closed (with a note for colleagues). What the traveller asked stays as they asked it."""

from functools import partial

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Case, When
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking.models import BookingStatus
from quote_requests import offer_terms, offers
from quote_requests.models import OfferLine, QuoteRequest, QuoteRequestStatus
from sitekit.admin_labels import LabelledTabularInline

TRIP = ("origin", "destination", "pickup_at", "passengers", "luggage", "vehicle_class", "details", "reason")
WHO = ("name", "email", "phone", "locale", "channel", "api_token")
WHEN = ("created_at", "updated_at")
OFFER = ("offer_vehicle_class", "offer_valid_until", "offer_sent_at", "booking")
EDITED = ("status", "staff_note", "offer_vehicle_class", "offer_valid_until")  # the rest is read-only


def accepted(request: QuoteRequest | None) -> bool:
    """The traveller booked the offer (paid or paying): its lines are the booking's price now."""
    booked = offer_terms.booked_from(request) if request is not None else None
    return booked is not None and booked.status != BookingStatus.CANCELLED


class OfferLineInline(LabelledTabularInline):
    model = OfferLine
    extra = 1
    verbose_name_plural = _("The offer's lines (gross, with VAT)")

    def has_add_permission(self, request, obj=None) -> bool:
        return not accepted(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return not accepted(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return not accepted(obj) and super().has_delete_permission(request, obj)


@admin.register(QuoteRequest)
class QuoteRequestAdmin(admin.ModelAdmin):
    list_display = [
        "reference",
        "status",
        "pickup_at",
        "origin",
        "destination",
        "passengers",
        "name",
        "created_at",
    ]
    list_filter = ["status", "channel"]
    search_fields = ["reference", "name", "email", "phone", "origin", "destination"]
    readonly_fields = ("reference", *TRIP, *WHO, *WHEN, "offer_sent_at", "booking")
    inlines = [OfferLineInline]
    actions = ["send_offer"]
    fieldsets = [
        (None, {"fields": ["reference", "status", "staff_note"]}),
        (_("The offer"), {"fields": OFFER}),
        (_("The trip"), {"fields": TRIP}),
        (_("Who asks"), {"fields": WHO}),
        (None, {"fields": WHEN}),
    ]

    def get_ordering(self, request):
        # the open ones first, then what was asked last
        return [Case(When(status=QuoteRequestStatus.OPEN, then=0), default=1), "-created_at"]

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return (*fields, "offer_vehicle_class", "offer_valid_until") if accepted(obj) else fields

    @admin.action(description=_("Send the offer to the traveller"), permissions=["change"])
    def send_offer(self, request, queryset) -> None:
        for quote_request in queryset:
            try:
                offers.send(quote_request.pk)
            except DomainError as refused:
                self.message_user(request, f"{quote_request.reference}: {refused.in_words()}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("{reference}: the offer is on its way.").format(reference=quote_request.reference),
                )

    def save_model(self, request, obj, form, change) -> None:
        # Only what the form edits: the booking and the offer as sent are the traveller's and the sending's.
        edited = [name for name in form.changed_data if name in EDITED]
        if edited:
            obj.save(update_fields=[*edited, "updated_at"])
        if "status" in edited and obj.status == QuoteRequestStatus.CLOSED:
            transaction.on_commit(partial(offers.withdraw, obj.pk))  # after the admin's transaction

    def has_add_permission(self, request) -> bool:
        return False  # travellers and agents ask; staff take a phone booking instead
