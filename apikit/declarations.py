"""The base of every input and output declaration (docs/decisions.md §1, DESIGN rule 2): a DRF serializer
whose fields are built and bound once per class and process, and whose reading and writing loops are
planned once too. DRF deep-copies the declared fields for each serializer instance, so that one instance
may edit its own; no declaration here does, and the copies were a third of a warm request's time. A bound
field keeps no state of a request: data, errors and results live on the serializer instance, which stays
one per use.

The plans keep DRF's semantics (each field's own `get_value`, `run_validation` and `to_representation`)
and drop only the per-request work around them: the generators over the fields, the `validate_<name>`
lookups, the attribute walk, which falls back to the field's own `get_attribute` whenever the plain walk
would not give DRF's answer (a missing attribute, a callable), and, for DRF's plain output fields, the
call of a `to_representation` that comes down to a builtin (`str`, `int`, `float`, a quantize). `write`
answers without making a serializer at all. tests/apikit/test_declarations.py compares both with
DRF's own loops over every declaration."""

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, ClassVar

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models.manager import BaseManager
from rest_framework import serializers
from rest_framework.fields import SkipField, empty, get_error_detail
from rest_framework.relations import PKOnlyObject
from rest_framework.settings import api_settings
from rest_framework.utils import html
from rest_framework.utils.serializer_helpers import BindingDict


class Declaration(serializers.Serializer):
    # Built once per class, on first use (_plans, _compile), and read through the class's own __dict__.
    _compiled_plans: ClassVar["_Plans"]
    _compiled_fields: ClassVar[BindingDict]

    @property
    def fields(self) -> BindingDict:
        return _compile(type(self))

    def to_representation(self, instance: Any) -> dict:
        answer = {}
        read = instance.__getitem__ if isinstance(instance, Mapping) else instance.__getattribute__
        for name, first, rest, field, write in _plans(type(self)).output:
            value: Any
            try:
                if first is _DRF:
                    value = _DRF
                elif first is None:  # source="*"
                    value = instance
                else:
                    value = read(first)
                    for attribute in rest:
                        value = value[attribute] if isinstance(value, Mapping) else getattr(value, attribute)
            except Exception:  # DRF's own walk decides: a default, None, skip, or its own error
                value = _DRF
            if value is _DRF or callable(value):
                try:
                    value = field.get_attribute(instance)
                except SkipField:
                    continue
                if isinstance(value, PKOnlyObject):  # only a related field's own get_attribute gives one
                    answer[name] = None if value.pk is None else field.to_representation(value)
                    continue
            answer[name] = None if value is None else write(value)
        return answer

    @classmethod
    def write(cls, instance: Any) -> dict:
        """`cls(instance).data` as a plain dict, without making a serializer for it."""
        return _plans(cls).template.to_representation(instance)

    def to_internal_value(self, data: Any) -> dict:
        if not isinstance(data, Mapping):
            message = self.error_messages["invalid"].format(datatype=type(data).__name__)
            raise serializers.ValidationError({api_settings.NON_FIELD_ERRORS_KEY: [message]}, code="invalid")
        validated: dict[str, Any] = {}
        errors: dict[str, Any] = {}
        plain_data = not html.is_html_input(data)
        for name, field, check, plain_read, plain_run, left_out in _plans(type(self)).input:
            try:
                value = data.get(name, empty) if plain_read and plain_data else field.get_value(data)
                if value is empty and left_out is not _DRF:  # DRF's default, unvalidated, or its skip
                    if left_out is SkipField:
                        continue
                    value = left_out
                elif plain_run and value is not empty and value is not None:
                    value = field.to_internal_value(value)
                    if field.validators:
                        field.run_validators(value)
                else:
                    value = field.run_validation(value)
                if check is not None:
                    value = getattr(self, check)(value)
            except serializers.ValidationError as exc:
                errors[name] = exc.detail
            except DjangoValidationError as exc:
                errors[name] = get_error_detail(exc)
            except SkipField:
                pass
            else:
                self.set_value(validated, field.source_attrs, value)
        if errors:
            raise serializers.ValidationError(errors)
        return validated

    def run_validators(self, value: Any) -> None:
        if self.validators:  # DRF adds the read-only fields' defaults only for the validators to see
            super().run_validators(value)


class _DRF:
    """Marks a value the plain walk could not read."""


class _Plans:
    def __init__(self, declaration: type[Declaration], fields: BindingDict):
        self.template = fields.serializer  # the compiled instance: it keeps no request's state
        # A field with its own get_attribute reads the instance its own way: the walk is left to it.
        self.output = [
            (name, *_walk(field), field, _writer(field))
            for name, field in fields.items()
            if not field.write_only
        ]
        self.input = [
            (
                name,
                field,
                f"validate_{name}" if hasattr(declaration, f"validate_{name}") else None,
                _inherits(field, "get_value"),
                all(
                    _inherits(field, method)
                    for method in ("run_validation", "validate_empty_values", "run_validators")
                ),
                _left_out(field),
            )
            for name, field in fields.items()
            if not field.read_only
        ]


def _left_out(field: serializers.Field) -> object:
    """What DRF makes of a field the data leaves out, when that is fixed: its default (returned unvalidated),
    or SkipField for an optional field without one; _DRF where DRF must decide (a required field's error, a
    default to call, a field with its own rules for it). The root is the compiled template, never partial."""
    plain = all(
        _inherits(field, method) for method in ("run_validation", "validate_empty_values", "get_default")
    )
    if not plain or field.required:
        return _DRF
    if field.default is empty:  # (a class, so callable: asked first)
        return SkipField
    return _DRF if callable(field.default) else field.default


def _walk(field: serializers.Field) -> tuple[object, tuple[str, ...]]:
    """The first attribute of the field's source and the rest; None for the instance itself (`*`), _DRF
    for a field that reads the instance its own way."""
    if not _inherits(field, "get_attribute"):
        return _DRF, ()
    path = tuple(field.source_attrs)
    return (path[0], path[1:]) if path else (None, ())


def _writer(field: serializers.Field) -> Callable[[Any], Any]:
    """The field's to_representation for a value that is not None, or the builtin it comes down to for
    DRF's plain fields: one Python call less per value (a price answer writes 23)."""
    method = type(field).to_representation
    if method is serializers.CharField.to_representation:
        return str
    if method is serializers.IntegerField.to_representation:
        return int
    if method is serializers.FloatField.to_representation:
        return float
    if (
        method is serializers.DecimalField.to_representation
        and isinstance(field, serializers.DecimalField)
        and not _writes_text(field)
    ):
        quantize = field.quantize
        return lambda value: quantize(value if isinstance(value, Decimal) else Decimal(str(value).strip()))
    if (
        method is serializers.ListSerializer.to_representation
        and isinstance(field, serializers.ListSerializer)
        and field.child is not None  # always: a ListSerializer requires one
    ):
        child = field.child.to_representation

        def write_each(items: Any) -> list:
            return [child(item) for item in (items.all() if isinstance(items, BaseManager) else items)]

        return write_each
    return field.to_representation


def _writes_text(field: serializers.DecimalField) -> bool:
    """Whether DRF writes this decimal as text (COERCE_DECIMAL_TO_STRING), or normalizes it."""
    coerce = getattr(field, "coerce_to_string", api_settings.COERCE_DECIMAL_TO_STRING)
    return coerce or field.normalize_output


def _inherits(field: serializers.Field, method: str) -> bool:
    """Whether the field does `method` as DRF's Field does."""
    return getattr(type(field), method) is getattr(serializers.Field, method)


def _plans(declaration: type[Declaration]) -> _Plans:
    plans = declaration.__dict__.get("_compiled_plans")
    if plans is None:
        plans = declaration._compiled_plans = _Plans(declaration, _compile(declaration))
    return plans


def _compile(declaration: type[Declaration]) -> BindingDict:
    compiled = declaration.__dict__.get("_compiled_fields")
    if compiled is not None:
        return compiled
    template = declaration()  # no data, no context, never partial: what every field may ask of its root
    fields = BindingDict(template)
    for name, field in template.get_fields().items():
        fields[name] = field
    declaration._compiled_fields = fields  # two threads compiling at once build equal sets; either wins
    return fields
