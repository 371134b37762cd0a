from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "access"
    verbose_name = "API access"

    def ready(self) -> None:
        from access import authentication  # noqa: F401  (registers the OpenAPI bearer scheme)
