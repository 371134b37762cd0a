"""The retention policy in the admin: its periods, and what the schedule's next run removes with them."""

from django.contrib import admin

from privacy import retention
from privacy.models import RetentionPolicy
from sitekit.admin import OneRecordAdmin


@admin.register(RetentionPolicy)
class RetentionPolicyAdmin(OneRecordAdmin):
    change_form_template = "admin/privacy/retentionpolicy/change_form.html"

    def render_change_form(self, request, context, *args, **kwargs):
        context["retention_due"] = retention.preview()
        return super().render_change_form(request, context, *args, **kwargs)
