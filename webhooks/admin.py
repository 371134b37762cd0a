"""Webhooks in the admin: the endpoints (staff's hear of every booking; a token's, added through the API, of
its bookings), paused and resumed; every delivery with its attempts and last answer, sent again on demand."""

import json

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from sitekit import l10n
from sitekit.admin import NamesChanges, ReadOnlyAdmin
from webhooks import addresses, sending
from webhooks.events import EVENT_TYPES
from webhooks.models import Delivery, Endpoint


class EndpointForm(forms.ModelForm):
    url = forms.URLField(
        label=_("URL"),
        max_length=addresses.MAX_URL_LENGTH,
        assume_scheme="https",
        help_text=_("HTTPS, on a public address; it receives each event as a POST."),
    )
    event_types = forms.MultipleChoiceField(
        label=_("events"),
        choices=list(EVENT_TYPES.items()),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("None ticked: every event."),
    )

    class Meta:
        model = Endpoint
        fields = ["url", "description", "event_types"]

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        try:
            addresses.checked(url)
        except addresses.EndpointRefused as refusal:
            raise forms.ValidationError(refusal.reason) from None
        return url


@admin.register(Endpoint)
class EndpointAdmin(NamesChanges, admin.ModelAdmin):
    form = EndpointForm
    list_display = ["url", "whose", "events", "state", "waiting", "created_at"]
    search_fields = ["url", "description", "public_id"]
    readonly_fields = ["public_id", "whose", "secret", "paused_at", "pause_reason", "created_at"]
    actions = ["resume"]

    def get_queryset(self, request):
        pending = Count("deliveries", filter=Q(deliveries__state=Delivery.State.PENDING))
        return super().get_queryset(request).select_related("api_token").annotate(pending=pending)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["url", "description", "event_types"]
        return [
            "public_id",
            "url",
            "description",
            "event_types",
            "whose",
            "secret",
            "paused_at",
            "pause_reason",
        ]

    @admin.display(description=_("bookings of"))
    def whose(self, endpoint: Endpoint) -> str:
        if endpoint.api_token is not None:
            return str(_("the API token “{name}”")).format(name=endpoint.api_token.name)
        return str(_("every booking (added by staff)")) if not endpoint.owner else str(_("a removed token"))

    @admin.display(description=_("events"))
    def events(self, endpoint: Endpoint) -> str:
        return ", ".join(endpoint.event_types) or str(_("every event"))

    @admin.display(description=_("state"))
    def state(self, endpoint: Endpoint) -> str:
        if endpoint.paused_at is None:
            return str(_("receiving"))
        return str(_("paused since {moment}")).format(moment=l10n.day_time(endpoint.paused_at))

    @admin.display(description=_("waiting"), ordering="pending")
    def waiting(self, endpoint: Endpoint):
        listed = reverse("admin:webhooks_delivery_changelist")
        pending = endpoint.pending  # type: ignore[attr-defined]  # the list's annotation
        return format_html(
            '<a href="{}?endpoint__id__exact={}&state__exact=pending">{}</a>', listed, endpoint.pk, pending
        )

    @admin.action(description=_("Resume the selected endpoints (their waiting events go out)"))
    def resume(self, request, queryset) -> None:
        paused = [endpoint for endpoint in queryset if endpoint.paused_at is not None]
        for endpoint in paused:
            sending.resume(endpoint)
        self.message_user(
            request,
            ngettext("%(count)d endpoint resumed.", "%(count)d endpoints resumed.", len(paused))
            % {"count": len(paused)},
            messages.SUCCESS,
        )


DELIVERY_SHOWN = (
    "event_id_shown",
    "event_type",
    "booking",
    "endpoint",
    "state",
    "attempts",
    "next_attempt_at",
    "last_attempt_at",
    "last_status",
    "last_answer",
    "delivered_at",
    "body",
)


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = [
        "event_type",
        "booking",
        "endpoint",
        "state",
        "attempts",
        "last_status",
        "last_attempt_at",
    ]
    list_filter = ["state", "event__type", "endpoint"]
    search_fields = ["event__subject", "event__public_id", "endpoint__url"]
    list_select_related = ["event", "endpoint"]
    fields = readonly_fields = DELIVERY_SHOWN
    actions = ["replay"]

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and request.user.has_perm("webhooks.change_delivery")  # the list's action only

    @admin.display(description=_("id"))
    def event_id_shown(self, delivery: Delivery) -> str:
        return delivery.event.public_id

    @admin.display(description=_("event"), ordering="event__type")
    def event_type(self, delivery: Delivery) -> str:
        return delivery.event.type

    @admin.display(description=_("booking"), ordering="event__subject")
    def booking(self, delivery: Delivery) -> str:
        return delivery.event.subject

    @admin.display(description=_("body"))
    def body(self, delivery: Delivery):
        return format_html("<pre>{}</pre>", json.dumps(delivery.event.payload, ensure_ascii=False, indent=2))

    @admin.action(description=_("Send the selected deliveries again"), permissions=["change"])
    def replay(self, request, queryset) -> None:
        count = 0
        for delivery in queryset.select_related("event"):
            sending.replay(delivery)
            count += 1
        self.message_user(
            request,
            ngettext(
                "%(count)d delivery queued to be sent again.",
                "%(count)d deliveries queued to be sent again.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )
