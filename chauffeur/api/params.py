from rest_framework import serializers
from rest_framework.request import Request


def query_params(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    """Validate a GET operation's query with its input declaration. A plain dict, not the QueryDict:
    DRF reads a missing boolean in form-style data as False, which would override declared defaults."""
    serializer = serializer_class(data=request.query_params.dict())
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
