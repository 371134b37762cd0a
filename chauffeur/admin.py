"""What every admin page of the project shares: success messages that name what changed, and inputs that
name themselves to assistive technology (axe-core checks every admin page in tests/browser/)."""

from datetime import datetime, time

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AdminSplitDateTime, RelatedFieldWidgetWrapper
from django.forms.models import BaseInlineFormSet, BaseModelFormSet
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


class LabelledSplitDateTime(AdminSplitDateTime):
    """The admin's date and time inputs (with calendar and clock), each with a label of its own: Django's
    writes "Date:" and "Time:" as bare text, which a screen reader does not tie to either input."""

    template_name = "admin/widgets/labelled_split_datetime.html"

    @property
    def media(self):
        # Django's names calendar.js and DateTimeShortcuts.js alone; merged with a page's other scripts they
        # may land before core.js, whose quickElement they call. One list with core.js first keeps the order.
        return forms.Media(
            js=["admin/js/core.js", "admin/js/calendar.js", "admin/js/admin/DateTimeShortcuts.js"]
        )


def label_inputs(form) -> None:
    """A row of a table (an inline, an editable list) names its fields only in the column headers, which are
    not labels: each visible input carries its field's name as its accessible name."""
    for name, field in form.fields.items():
        widget = field.widget
        # The admin wraps a relation's select; the wrapper's `attrs` are the class-wide select's.
        if isinstance(widget, RelatedFieldWidgetWrapper):
            widget = widget.widget
        if not widget.is_hidden:
            widget.attrs.setdefault("aria-label", str(field.label or name))


class LabelledInlineFormSet(BaseInlineFormSet):
    """The formset of a `LabelledTabularInline`; a formset of its own must extend it."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        label_inputs(form)


class LabelledTabularInline(admin.TabularInline):
    """A TabularInline whose inputs are labelled and whose table has no empty column header."""

    formset = LabelledInlineFormSet
    template = "admin/edit_inline/labelled_tabular.html"


class LabelledListFormSet(BaseModelFormSet):
    """For a list with `list_editable`: see `LabelsEditableList`."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        label_inputs(form)


class LabelsEditableList:
    """A ModelAdmin mixin: the inputs of an editable list are labelled."""

    def get_changelist_formset(self, request, **kwargs):
        return super().get_changelist_formset(request, formset=LabelledListFormSet, **kwargs)
