"""What every admin page of the project shares: success messages that name what changed, and the pages of
the one-record policies."""

from datetime import datetime, time

from django import forms
from django.contrib import admin, messages
from django.utils import formats, timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _


class NamesChanges:
    """A ModelAdmin mixin: “The tariff “Executive Class” was changed successfully. Base fare: 30.00 → 32.00;
    distance bands changed.” instead of the bare sentence, so staff see what they did."""

    def save_model(self, request, obj, form, change):
        if change:
            request.named_changes = [described(form, name) for name in form.changed_data]
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if change:
            request.named_changes = getattr(request, "named_changes", []) + [
                _("%s changed") % formset.model._meta.verbose_name_plural
                for formset in formsets
                if formset.has_changed()
            ]

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        named = getattr(request, "named_changes", None)
        if named and level == messages.SUCCESS:
            message = format_html("{} {}.", message, "; ".join(named))
            request.named_changes = None
        super().message_user(request, message, level, *args, **kwargs)


def described(form, name: str) -> str:
    field = form.fields[name]
    label = str(field.label or name)
    before, after = form.initial.get(name), form.cleaned_data.get(name)
    if isinstance(field, forms.DecimalField) and field.decimal_places is not None:  # 40 is shown 40.00
        before, after = (
            value if value is None else round(value, field.decimal_places) for value in (before, after)
        )
    before, after = shown(before), shown(after)
    return f"{label[:1].upper()}{label[1:]}: {before} → {after}"


def shown(value) -> str:
    if value in (None, ""):
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, datetime):
        return formats.localize(timezone.localtime(value))
    if isinstance(value, time):
        return value.strftime("%H:%M")
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value) or "—"
    return str(value)


class ReadOnlyAdmin:
    """A record staff read here and never add, change or delete (a model admin or an inline)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class OneRecordAdmin(NamesChanges, admin.ModelAdmin):
    """A policy is one record that staff edit: never a second, never none."""

    def has_add_permission(self, request):
        return super().has_add_permission(request) and not self.model.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False
