from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuoteRequestsConfig(AppConfig):
    name = "quote_requests"
    verbose_name = _("Quote requests")
