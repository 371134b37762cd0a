from django.apps import AppConfig


class SitekitConfig(AppConfig):
    name = "sitekit"
    verbose_name = "Shared site pieces"
