from django.apps import AppConfig


class ProjectConfig(AppConfig):
    name = "config"
    label = "chauffeur"  # the project app's label before it was called config
    verbose_name = "Chauffeur service"

    def ready(self) -> None:
        from config import checks  # noqa: F401  (registers the deployment checks)
