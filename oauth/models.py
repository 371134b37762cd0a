"""The authorization server's records: clients, consents (grants), one-time codes, refresh tokens and
travellers' sign-in codes. The access tokens a grant issues are API tokens (access.models.ApiToken). The
tables keep the names they had in the access app (docs/development/layout.md, "Folder names and app
labels")."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class OAuthClient(models.Model):
    """An application that asks travellers or staff for access (docs/agents/oauth.md): registered by itself
    (RFC 7591) or named by the URL of its metadata document (a client ID metadata document)."""

    class Registration(models.TextChoices):
        DYNAMIC = "dynamic", _("dynamic registration")
        METADATA_DOCUMENT = "metadata_document", _("client ID metadata document")

    client_id = models.CharField(_("client ID"), max_length=2000, unique=True)
    registration = models.CharField(_("registration"), max_length=20, choices=Registration.choices)
    name = models.CharField(_("name"), max_length=200)
    redirect_uris = models.JSONField(_("redirect URIs"), default=list)
    client_uri = models.CharField(_("website"), max_length=2000, blank=True)
    logo_uri = models.CharField(_("logo"), max_length=2000, blank=True)
    token_endpoint_auth_method = models.CharField(max_length=40, default="none")
    secret_digest = models.CharField(max_length=64, blank=True, editable=False)  # SHA-256; none for public
    metadata = models.JSONField(_("metadata"), default=dict, help_text=_("As registered or fetched."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    metadata_fetched_at = models.DateTimeField(_("metadata fetched at"), null=True, blank=True)
    # A client ID metadata document is fetched again after this (its Cache-Control, at most a setting).
    metadata_expires_at = models.DateTimeField(_("metadata expires at"), null=True, blank=True)
    blocked_at = models.DateTimeField(_("blocked at"), null=True, blank=True)
    # What staff allow an agency's client to hold on the operator's behalf (empty: travellers only).
    agency_scopes = models.JSONField(_("agency scopes"), default=list, blank=True)
    rate_limit = models.PositiveIntegerField(
        _("rate limit"),
        null=True,
        blank=True,
        help_text=_("Requests per rate-limit window for its tokens; empty: the service's default."),
    )

    class Meta:
        ordering = ["-created_at"]
        db_table = "access_oauthclient"
        verbose_name, verbose_name_plural = _("OAuth client"), _("OAuth clients")

    def __str__(self) -> str:
        return self.name or self.client_id


class OAuthGrant(models.Model):
    """A consent: a traveller (by their e-mail address) or a staff member let a client act with these scopes
    on one resource. Its tokens live and die with it."""

    class Subject(models.TextChoices):
        TRAVELLER = "traveller", _("traveller")
        AGENCY = "agency", _("agency, approved by staff")

    client = models.ForeignKey(
        OAuthClient, on_delete=models.PROTECT, related_name="grants", verbose_name=_("OAuth client")
    )
    subject = models.CharField(_("given by"), max_length=20, choices=Subject.choices)
    traveller_email = models.EmailField(_("traveller's e-mail"), blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("approved by"),
    )
    scopes = models.JSONField(_("scopes"), default=list)
    resource = models.CharField(_("resource"), max_length=2000)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        db_table = "access_oauthgrant"
        verbose_name, verbose_name_plural = _("OAuth grant"), _("OAuth grants")

    def __str__(self) -> str:
        return f"{self.client} – {self.traveller_email or self.get_subject_display()}"


class AuthorizationCode(models.Model):
    """A one-time code (RFC 6749 §4.1.2): short-lived, bound to its redirect URI, PKCE challenge, resource."""

    grant = models.ForeignKey(OAuthGrant, on_delete=models.CASCADE, related_name="codes")
    digest = models.CharField(max_length=64, unique=True)
    redirect_uri = models.CharField(max_length=2000)
    code_challenge = models.CharField(max_length=128)
    scopes = models.JSONField(default=list)
    resource = models.CharField(max_length=2000)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "access_authorizationcode"

    def __str__(self) -> str:
        return f"code for {self.grant}"


class RefreshToken(models.Model):
    """A refresh token; each use replaces it (rotation), and a used one presented again revokes its grant."""

    grant = models.ForeignKey(OAuthGrant, on_delete=models.CASCADE, related_name="refresh_tokens")
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "access_refreshtoken"

    def __str__(self) -> str:
        return f"refresh token for {self.grant}"


class SignInCode(models.Model):
    """A one-time code mailed to a traveller who signs in to consent (no password): short-lived, single-use,
    a few attempts, and only in the browser session that asked for it."""

    email = models.EmailField()
    digest = models.CharField(max_length=64)  # a keyed hash of the code (oauth/travellers.py)
    # The code is derived from this and the secret key, so the mail job's arguments and the database
    # alone never hold it (oauth/travellers.py).
    salt = models.CharField(max_length=64, blank=True)
    session_key = models.CharField(max_length=64)  # a digest of the asking browser's session, not the key
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "access_signincode"
        indexes = [models.Index(fields=["email", "created_at"])]

    def __str__(self) -> str:
        return f"sign-in code for {self.email}"
