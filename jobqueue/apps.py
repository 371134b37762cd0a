from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class JobsConfig(AppConfig):
    name = "jobqueue"
    label = "jobs"  # its tables, permissions and migrations keep the old label
    verbose_name = _("Background jobs")
    default_auto_field = "django.db.models.BigAutoField"
