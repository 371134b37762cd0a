"""A serializer declaration rendered as a self-contained JSON Schema, by the same drf-spectacular mapping
that writes /openapi.json: a tool's `inputSchema` and `outputSchema` can never drift from the REST
operation that validates with the same declaration."""

import functools
from decimal import Decimal

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import serializers
from rest_framework.views import APIView

REF_PREFIX = "#/components/schemas/"


@functools.cache
def json_schema(serializer_class: type[serializers.Serializer], direction: str) -> dict:
    """`direction` is "request" (what a caller sends) or "response" (what it gets back). Input objects
    refuse unknown members, as the tools do (a misspelt argument must not be silently ignored)."""
    mapper = AutoSchema()
    mapper.registry = ComponentRegistry()
    mapper.method, mapper.path = "POST", "/api/mcp"
    mapper.view = APIView()
    mapper.view.request = None
    root = mapper.resolve_serializer(serializer_class(), direction).schema
    components = {name: component.schema for (name, _kind), component in mapper.registry._components.items()}
    schema = _inline(root, components, strict=direction == "request")
    schema.pop("description", None)  # a serializer's docstring speaks to developers, not to agents
    return schema


def _inline(node: object, components: dict, strict: bool) -> object:
    """Replace $refs by their components, drop vendor extensions, write Decimal bounds as JSON numbers."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(components[node["$ref"].removeprefix(REF_PREFIX)], components, strict)
        inlined = {
            key: _inline(value, components, strict) for key, value in node.items() if not key.startswith("x-")
        }
        if strict and inlined.get("type") == "object" and "properties" in inlined:
            inlined["additionalProperties"] = False
        return inlined
    if isinstance(node, list):
        return [_inline(item, components, strict) for item in node]
    if isinstance(node, Decimal):
        return int(node) if node == node.to_integral_value() else float(node)
    return node
