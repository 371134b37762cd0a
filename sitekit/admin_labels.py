"""Admin inputs that name themselves to assistive technology, where Django's own markup does not: the date
and time pickers, the rows of tabular inlines and of editable lists (axe-core checks every admin page in
tests/browser/test_admin_pages.py)."""

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AdminSplitDateTime, RelatedFieldWidgetWrapper
from django.forms.models import BaseInlineFormSet, BaseModelFormSet


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
