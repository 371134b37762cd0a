"""Build the POST data an admin change page submits, so a test changes only what it means to change."""

from django import forms


def _form_data(form) -> dict:
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        key = form.add_prefix(name)
        if isinstance(field, forms.BooleanField):
            if value:
                data[key] = "on"
        elif isinstance(value, list | tuple):
            data[key] = [str(item) for item in value]
        else:
            data[key] = "" if value is None else str(value)
    return data


def change_form_data(response) -> dict:
    data = _form_data(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update(_form_data(formset.management_form))
        for form in formset.forms:
            data.update(_form_data(form))
    data["_save"] = "Save"
    return data


def inline_prefix(data: dict, field_suffix: str, value: str) -> str:
    """The prefix (e.g. `bands-1`) of the inline form whose `field_suffix` currently holds `value`."""
    for key, current in data.items():
        if key.endswith(f"-{field_suffix}") and current == value:
            return key[: -len(field_suffix) - 1]
    raise KeyError(f"no inline form with {field_suffix}={value}")


def empty_inline(prefix: str) -> dict:
    """An inline's management form with no forms: a page posted without touching its inline (e.g. papers)."""
    return {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
