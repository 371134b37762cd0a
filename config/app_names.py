"""Apps of other packages under names staff read: the admin's home shows an app's verbose name as the title of
its section, and django-axes gives none (the admin made "Axes" of its label)."""

from axes.apps import AppConfig as AxesConfig
from django.utils.translation import gettext_lazy as _


class SignInAttemptsConfig(AxesConfig):
    """django-axes (sign-in throttling): its failed sign-ins, lock-outs and sign-in log."""

    verbose_name = _("Sign-in attempts")
