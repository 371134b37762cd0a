from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BusinessConfig(AppConfig):
    name = "corporate"
    label = "business"  # its tables, permissions and migrations keep the old label
    verbose_name = _("Business customers")
