"""The base of every input and output declaration (docs/decisions.md §1, DESIGN rule 2): a DRF serializer
whose fields are built and bound once per class and process. DRF deep-copies the declared fields for each
serializer instance, so that one instance may edit its own; no declaration here does, and the copies were
a third of a warm request's time. A bound field keeps no state of a request: data, errors and results
live on the serializer instance, which stays one per use."""

from rest_framework import serializers
from rest_framework.utils.serializer_helpers import BindingDict


class Declaration(serializers.Serializer):
    @property
    def fields(self) -> BindingDict:
        compiled = type(self).__dict__.get("_compiled_fields")
        return compiled if compiled is not None else _compile(type(self))


def _compile(declaration: type[Declaration]) -> BindingDict:
    template = declaration()  # no data, no context, never partial: what every field may ask of its root
    fields = BindingDict(template)
    for name, field in template.get_fields().items():
        fields[name] = field
    declaration._compiled_fields = fields  # two threads compiling at once build equal sets; either wins
    return fields
