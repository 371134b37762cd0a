"""The retention policy in the admin: its periods, and what the schedule's next run does with them; and the
holds that keep a booking past them."""

from django import forms
from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from booking.models import Booking
from privacy import retention
from privacy.models import Hold, RetentionPolicy
from sitekit.admin import OneRecordAdmin


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
        Booking.objects.select_for_update().filter(pk=obj.booking_id).first()
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
