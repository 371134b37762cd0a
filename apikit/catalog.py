"""GET /api/v1: the catalog of every v1 operation, read from the same OpenAPI document clients get,
so the two can never disagree."""

import functools

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.document import openapi_document
from apikit.problems import is_v1_path
from apikit.schema import HTTP_METHODS


@functools.cache
def v1_operations() -> tuple[dict, ...]:
    schema = openapi_document()
    operations = []
    for path, item in schema["paths"].items():
        if not is_v1_path(path):
            continue
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            requirements = operation.get("security") or []
            scopes = sorted(
                {scope for requirement in requirements for names in requirement.values() for scope in names}
            )
            operations.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "operationId": operation["operationId"],
                    "summary": operation.get("summary", ""),
                    "tokenRequired": bool(requirements) and {} not in requirements,
                    "scopes": scopes,
                }
            )
    return tuple(operations)


CatalogSerializer = inline_serializer(
    "Catalog",
    {
        "name": serializers.CharField(),
        "version": serializers.CharField(),
        "openapi": serializers.URLField(),
        "docs": serializers.URLField(),
        "operations": inline_serializer(
            "CatalogOperation",
            {
                "method": serializers.CharField(),
                "path": serializers.CharField(),
                "operationId": serializers.CharField(),
                "summary": serializers.CharField(),
                "tokenRequired": serializers.BooleanField(),
                "scopes": serializers.ListField(child=serializers.CharField()),
            },
            many=True,
        ),
    },
)


class CatalogApi(APIView):
    @extend_schema(
        operation_id="getCatalog",
        summary="List every operation of the v1 API",
        description=(
            "Each operation of /api/v1 with its method, path, operationId and summary, whether it needs a "
            "bearer token and the scopes it asks for; `openapi` is this document's address, `docs` its "
            "pages. Read from the same document, so the two always agree."
        ),
        tags=["catalog"],
        responses={200: OpenApiResponse(CatalogSerializer, description="Every v1 operation.")},
    )
    def get(self, request: Request) -> Response:
        spectacular = settings.SPECTACULAR_SETTINGS
        return Response(
            {
                "name": spectacular["TITLE"],
                "version": spectacular["VERSION"],
                "openapi": f"{settings.PUBLIC_BASE_URL}/openapi.json",
                "docs": f"{settings.PUBLIC_BASE_URL}/api/docs",
                "operations": list(v1_operations()),
            }
        )
