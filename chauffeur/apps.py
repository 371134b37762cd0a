from django.apps import AppConfig


class ChauffeurConfig(AppConfig):
    name = "chauffeur"
    verbose_name = "Chauffeur service"

    def ready(self) -> None:
        from chauffeur import checks  # noqa: F401  (registers the deployment checks)
