from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PrivacyConfig(AppConfig):
    name = "privacy"
    verbose_name = _("Privacy: what is kept how long")
