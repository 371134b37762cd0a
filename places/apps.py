from django.apps import AppConfig


class PlacesConfig(AppConfig):
    name = "places"
    verbose_name = "Places and routes"
