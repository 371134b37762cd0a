"""The retention policy in the admin: its periods, and what the schedule's next run does with them; the
holds that keep a booking past them; and travellers' requests for their data, with their deadlines."""

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from booking import selectors
from booking.models import Booking
from privacy import retention, traveller_data
from privacy.models import DataRequest, Hold, RetentionPolicy
from sitekit.admin import OneRecordAdmin
from sitekit.admin_labels import LabelledSplitDateTime


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(OneRecordAdmin):
    change_form_template = "admin/privacy/retentionpolicy/change_form.html"

    def render_change_form(self, request, context, *args, **kwargs):
        context["retention_due"] = retention.preview()
        return super().render_change_form(request, context, *args, **kwargs)


class HoldForm(forms.ModelForm):
    booking = forms.ModelChoiceField(
        Booking.objects.all(),
        to_field_name="reference",
        widget=forms.TextInput(attrs={"placeholder": "CB-…", "autocomplete": "off"}),
        label=_("booking"),
        help_text=_("Its reference, as the booking list shows it."),
        error_messages={"invalid_choice": _("No booking has this reference.")},
    )

    class Meta:
        model = Hold
        fields = ["booking", "reason", "until"]


@admin.register(Hold)
class HoldAdmin(admin.ModelAdmin):
    form = HoldForm
    list_display = ["booking", "reason", "until", "stands", "created_by", "created_at"]
    list_select_related = ["booking", "created_by"]
    search_fields = ["booking__reference", "reason"]
    readonly_fields = ["created_by", "created_at"]

    @admin.display(description=_("standing"), boolean=True)
    def stands(self, hold: Hold) -> bool:
        return hold.stands_on(timezone.localdate())

    def save_model(self, request, obj, form, change):
        # The booking first: a removal running now either sees this hold or has finished before it.
        selectors.locked_booking(obj.booking_id)
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


class OpenFilter(admin.SimpleListFilter):
    title = _("answer")
    parameter_name = "answer"

    def lookups(self, request, model_admin):
        return [("open", _("open")), ("overdue", _("overdue")), ("answered", _("answered"))]

    def queryset(self, request, queryset):
        if self.value() == "answered":
            return queryset.filter(answered_at__isnull=False)
        if self.value() in ("open", "overdue"):
            queryset = queryset.filter(answered_at__isnull=True)
        if self.value() == "overdue":
            return queryset.filter(pk__in=[r.pk for r in queryset if r.due_on < timezone.localdate()])
        return queryset


class DataRequestForm(forms.ModelForm):
    class Meta:
        model = DataRequest
        fields = ["email", "kind", "received_at", "note"]
        widgets = {"received_at": LabelledSplitDateTime}


@admin.register(DataRequest)
class DataRequestAdmin(admin.ModelAdmin):
    form = DataRequestForm
    list_display = ["email", "kind", "channel", "received_at", "due", "answered_at", "answered_by", "outcome"]
    list_filter = [OpenFilter, "kind", "channel"]
    search_fields = ["email"]
    fields = ["email", "kind", "received_at", "note", "channel", "answered_at", "answered_by", "outcome"]
    readonly_fields = ["channel", "answered_at", "answered_by", "outcome"]
    actions = ["hand_out_copy", "erase"]

    @admin.display(description=_("answer due on"), ordering="received_at")
    def due(self, request: DataRequest) -> str:
        day = date_format(request.due_on, "SHORT_DATE_FORMAT")
        if request.answered_at is None and request.due_on < timezone.localdate():
            return format_html('<strong class="overdue">{} ({})</strong>', day, _("overdue"))
        return day

    def get_readonly_fields(self, request, obj=None):
        answered = obj is not None and obj.answered_at is not None
        return [*self.fields] if answered else self.readonly_fields  # an answered request is the record

    def has_delete_permission(self, request, obj=None):
        return False  # the log of what was asked and answered

    @admin.action(
        description=_("Answer: download the traveller's data (one request)"), permissions=["change"]
    )
    def hand_out_copy(self, request, queryset):
        chosen = self._one_open(request, queryset, DataRequest.Kind.ACCESS)
        if chosen is None:
            return None
        _answered, copy = traveller_data.copied(
            chosen.email, channel=DataRequest.Channel.STAFF, user=request.user, request=chosen
        )
        return traveller_data.download(copy, f"data-{chosen.pk}.json")

    @admin.action(description=_("Answer: erase the traveller's data (one request)"), permissions=["change"])
    def erase(self, request, queryset):
        chosen = self._one_open(request, queryset, DataRequest.Kind.ERASURE)
        if chosen is not None:
            answered, _erasure = traveller_data.erase(
                chosen.email, channel=DataRequest.Channel.STAFF, user=request.user, request=chosen
            )
            self.message_user(
                request, _("Answered: %(outcome)s") % {"outcome": answered.outcome}, messages.SUCCESS
            )

    def _one_open(self, request, queryset, kind) -> DataRequest | None:
        chosen = list(queryset[:2])
        if len(chosen) != 1 or chosen[0].kind != kind or chosen[0].answered_at is not None:
            said = _("Choose one open request of this kind: each answer is its own.")
            self.message_user(request, said, messages.ERROR)
            return None
        return chosen[0]
