"""A serializer declaration rendered as a self-contained JSON Schema, by the same drf-spectacular mapping
that writes /openapi.json: a tool's `inputSchema` and `outputSchema` can never drift from the REST
operation that validates with the same declaration."""

import functools
from decimal import Decimal
from typing import Literal

from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import serializers
from rest_framework.views import APIView

from apikit.field_schemas import InputRulesSchema

REF_PREFIX = "#/components/schemas/"


@functools.cache
def json_schema(
    serializer_class: type[serializers.Serializer], direction: Literal["request", "response"]
) -> dict:
    """`direction` is "request" (what a caller sends) or "response" (what it gets back). Input objects
    refuse unknown members, as the tools do (a misspelt argument must not be silently ignored)."""
    mapper = InputRulesSchema()  # the mapping /openapi.json uses, input rules included
    mapper.registry = ComponentRegistry()
    mapper.method, mapper.path = "POST", "/api/mcp"
    mapper.view = APIView()
    mapper.view.request = None  # type: ignore[assignment]  # a schema built outside any request
    root = mapper.resolve_serializer(serializer_class(), direction).schema
    components = {name: component.schema for (name, _kind), component in mapper.registry._components.items()}
    if not root:  # drf-spectacular writes nothing for a declaration without fields
        root = {"type": "object", "properties": {}}
    schema = _inline(root, components, strict=direction == "request")
    assert isinstance(schema, dict)  # noqa: S101  (an object's schema stays one)
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


UNKNOWN_ARGUMENT = "This tool does not take this argument."
JSON_TYPES = {
    "string": str,
    "number": int | float,
    "integer": int,
    "boolean": bool,
    "object": dict,
    "array": list,
}
JSON_TYPE_WORDS = {
    "string": "a string",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "object": "an object",
    "array": "an array",
}


OPTIONAL_NULL = "Optional arguments may be left out or sent as null: null is the same as leaving one out."


def without_nulls(schema: dict, arguments: dict) -> dict:
    """The arguments with every optional one sent as null left out, nested objects included: some agent
    frameworks (mcp-use) send null for each optional argument they were not given. A required argument or
    one whose schema allows null keeps its null, and is judged as sent."""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    kept = {}
    for name, value in arguments.items():
        declared = properties.get(name)
        if declared is None:
            kept[name] = value  # unknown: argument_errors names it
        elif value is None and name not in required and not declared.get("nullable"):
            continue
        elif (nested := _object_schema(declared)) is not None and isinstance(value, dict):
            kept[name] = without_nulls(nested, value)
        else:
            kept[name] = value
    return kept


def argument_errors(schema: dict, arguments: dict, prefix: str = "") -> dict[str, list[str]]:
    """Where `arguments` break an input schema's JSON types or its closed list of properties, nested
    objects included (`bookingData.tourName`): `{name: [message]}`. The rest is the serializer's job."""
    errors: dict[str, list[str]] = {}
    properties = schema.get("properties", {})
    for name, value in arguments.items():
        declared = properties.get(name)
        if declared is None:
            if schema.get("additionalProperties") is False:
                errors[prefix + name] = [UNKNOWN_ARGUMENT]
            continue
        declared = _object_schema(declared) or declared
        expected = declared.get("type")
        if value is None and declared.get("nullable"):
            continue
        if expected in JSON_TYPES and not _is_json_type(value, expected):
            errors[prefix + name] = [f"Expected {JSON_TYPE_WORDS[expected]}."]
        elif expected == "object" and isinstance(value, dict):
            errors.update(argument_errors(declared, value, f"{prefix}{name}."))
    return errors


def _object_schema(declared: dict) -> dict | None:
    """The object a property declares, also when a description wraps it (`{"allOf": [object], …}`)."""
    if declared.get("type") == "object":
        return declared
    wrapped = declared.get("allOf")
    if isinstance(wrapped, list) and len(wrapped) == 1 and wrapped[0].get("type") == "object":
        return wrapped[0]
    return None


def _is_json_type(value: object, expected: str) -> bool:
    if isinstance(value, bool):  # JSON's true is not the number 1
        return expected == "boolean"
    if expected == "integer" and isinstance(value, float):  # 7400.0 is an integer to JSON Schema
        return value.is_integer()
    return isinstance(value, JSON_TYPES[expected])
