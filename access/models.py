from django.db import models
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    READ = "booking.read", _("booking.read: distance, price, places, availability")
    WRITE = "booking.write", _("booking.write: checkout")


class ApiToken(models.Model):
    """A bearer token for agents and partners (docs/decisions.md §6). Only a SHA-256 digest is stored;
    the plain token is shown once, when it is issued."""

    name = models.CharField(
        _("name"), max_length=100, help_text=_("Who or what uses it, e.g. “Concierge agent of Hotel X”.")
    )
    prefix = models.CharField(
        _("prefix"), max_length=16, db_index=True, editable=False, help_text=_("To recognise it; not secret.")
    )
    digest = models.CharField(max_length=64, unique=True, editable=False)
    scopes = models.JSONField(_("scopes"), default=list)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(
        _("expires at"), null=True, blank=True, help_text=_("Empty: does not expire.")
    )
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    rate_limit = models.PositiveIntegerField(
        _("rate limit"),
        null=True,
        blank=True,
        help_text=_("Requests per rate-limit window for this token; empty: the service's default."),
    )

    company_account = models.ForeignKey(
        "business.CompanyAccount",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="api_tokens",
        verbose_name=_("company account"),
        help_text=_("Its checkouts may book on this company's account."),
    )
    # An OAuth access token (oauth/): the consent it was issued under, the traveller it acts for
    # (empty: an agency's token, approved by staff, acting like an admin-issued one), the resource it is for.
    grant = models.ForeignKey(
        "oauth.OAuthGrant",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="access_tokens",
        editable=False,
        verbose_name=_("OAuth grant"),
    )
    acts_for = models.EmailField(_("acts for"), blank=True, editable=False)
    audience = models.CharField(
        _("audience"), max_length=2000, blank=True, editable=False, help_text=_("Empty: every API.")
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("API token"), _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
