"""A serializer declaration rendered as a self-contained JSON Schema, by the same drf-spectacular mapping
that writes /openapi.json: a tool's `inputSchema` and `outputSchema` can never drift from the REST
operation that validates with the same declaration."""

import functools
import re
from decimal import Decimal
from typing import Literal

from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import serializers
from rest_framework.views import APIView

from apikit.field_schemas import InputRulesSchema

REF_PREFIX = "#/components/schemas/"
# A field's description is shared with the REST operation, and names the REST operations: a model reads
# the tool that does the same instead.
TOOL_OF_OPERATION = {
    "/api/v1/distance": "booking.estimate_distance",
    "/api/v1/extras": "booking.list_extras",
    "/api/v1/bookings/{reference}": "booking.get_booking",
}
OPERATION = re.compile(r"(?:GET )?(/api/v1/[\w/{}]*\w}?)")


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
            key: _for_tools(value) if key == "description" else _inline(value, components, strict)
            for key, value in node.items()
            if not key.startswith("x-")
        }
        if strict and inlined.get("type") == "object" and "properties" in inlined:
            inlined["additionalProperties"] = False
        return inlined
    if isinstance(node, list):
        return [_inline(item, components, strict) for item in node]
    if isinstance(node, Decimal):
        return int(node) if node == node.to_integral_value() else float(node)
    return node


def _for_tools(description: object) -> object:
    if not isinstance(description, str):
        return description
    return OPERATION.sub(lambda named: TOOL_OF_OPERATION.get(named[1], named[0]), description)


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
NULL = {"type": "null"}
ANNOTATIONS = ("title", "description", "default", "examples")  # what a property says, not what it allows


@functools.cache
def listed_input_schema(serializer_class: type[serializers.Serializer]) -> dict:
    """A tool's inputSchema as tools/list offers it to models. Every optional property, nested ones
    included, also allows null, which `without_nulls` reads as left out: strict function calling (OpenAI's,
    openai-agents with strict schemas) makes every property required, and the model then sends null for
    those it means to leave out rather than invent a value. `anyOf` stands where drf-spectacular writes
    `oneOf` (its alternatives never overlap in meaning here; Gemini's schema type has no oneOf), and an
    object wrapped in a one-item `allOf` is written out."""
    schema = _listed(json_schema(serializer_class, "request"))
    if set(schema.get("properties", {})) - set(schema.get("required", [])):
        schema["description"] = OPTIONAL_NULL
    return schema


@functools.cache
def listed_output_schema(declaration: type[serializers.Serializer]) -> dict:
    """A tool's outputSchema as tools/list offers it: `anyOf` where drf-spectacular writes `oneOf` (an
    object or null), so that no schema a model reads has a keyword some model APIs lack."""
    listed = _any_of(json_schema(declaration, "response"))
    assert isinstance(listed, dict)  # noqa: S101  (an object's schema stays one)
    return listed


def _any_of(node: object) -> object:
    if isinstance(node, dict):
        return {("anyOf" if key == "oneOf" else key): _any_of(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_any_of(item) for item in node]
    return node


def _listed(node: dict) -> dict:
    node = _unwrapped(node)
    listed: dict = {}
    for key, value in node.items():
        if key in ("oneOf", "anyOf", "allOf"):
            listed["allOf" if key == "allOf" else "anyOf"] = [_listed(choice) for choice in value]
        elif key == "items" and isinstance(value, dict):
            listed[key] = _listed(value)
        elif key == "properties":
            required = set(node.get("required", []))
            listed[key] = {
                name: _listed(declared) if name in required else _or_null(_listed(declared))
                for name, declared in value.items()
            }
        else:
            listed[key] = value
    return listed


def _unwrapped(node: dict) -> dict:
    """`{"allOf": [object], "description": …}` as one schema (drf-spectacular's way to describe a $ref)."""
    wrapped = node.get("allOf")
    if isinstance(wrapped, list) and len(wrapped) == 1 and isinstance(wrapped[0], dict):
        return {**wrapped[0], **{key: value for key, value in node.items() if key != "allOf"}}
    return node


def _or_null(declared: dict) -> dict:
    if allows_null(declared):
        return declared
    said = {key: declared[key] for key in ANNOTATIONS if key in declared}
    allowed = {key: value for key, value in declared.items() if key not in ANNOTATIONS}
    choices = allowed["anyOf"] if set(allowed) == {"anyOf"} else [allowed]
    return {"anyOf": [*choices, NULL], **said}


def allows_null(declared: dict) -> bool:
    kind = declared.get("type")
    return (
        kind == "null"
        or (isinstance(kind, list) and "null" in kind)
        or bool(declared.get("nullable"))
        or any(allows_null(choice) for choice in declared.get("anyOf", []))
    )


def without_nulls(schema: dict, arguments: dict) -> dict:
    """The arguments with every optional one sent as null left out, nested objects (and objects in
    arrays) included: strict function calling and some agent frameworks (mcp-use) send null for each
    optional argument they were not given. A required argument or one whose schema allows null keeps its
    null, and is judged as sent."""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    kept = {}
    for name, value in arguments.items():
        declared = properties.get(name)
        if declared is None:
            kept[name] = value  # unknown: argument_errors names it
        elif value is None and name not in required and not allows_null(declared):
            continue
        else:
            kept[name] = _without_nested_nulls(declared, value)
    return kept


def _without_nested_nulls(declared: dict, value: object) -> object:
    if (nested := _object_schema(declared)) is not None and isinstance(value, dict):
        return without_nulls(nested, value)
    items = declared.get("items")
    if isinstance(items, dict) and (nested := _object_schema(items)) is not None and isinstance(value, list):
        return [without_nulls(nested, item) if isinstance(item, dict) else item for item in value]
    return value


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
        if value is None and allows_null(declared):
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
