from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Q
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from access import tokens
from access.models import ApiToken, Scope
from sitekit import l10n
from sitekit.admin import NamesChanges
from sitekit.admin_labels import LabelledSplitDateTime


class ApiTokenForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        label=_("scopes"), choices=Scope.choices, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = ApiToken
        fields = ["name", "scopes", "company_account", "expires_at", "rate_limit"]
        widgets = {"expires_at": LabelledSplitDateTime}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "rate_limit" not in self.fields:  # a viewer's form: the admin shows the fields read-only
            return
        # Only active accounts are offered; a token already tied to one that went inactive keeps it shown.
        accounts = self.fields["company_account"].queryset
        tied = self.instance.company_account_id if self.instance.pk else None
        self.fields["company_account"].queryset = accounts.filter(Q(active=True) | Q(pk=tied))
        self.fields["company_account"].help_text = _(
            "Its checkouts with paymentMethod “account” book on this company's account, for the addresses "
            "the account lists under “Who may book”. Empty: the token's checkouts are paid by card."
        )
        self.fields["rate_limit"].help_text = format_lazy(
            _("Requests per {seconds} seconds for this token; empty: the default ({default})."),
            seconds=settings.API_RATE_LIMIT_WINDOW_SECONDS,
            default=settings.API_RATE_LIMIT_REQUESTS,
        )


class TokenStateFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("active", _("active")), ("expired", _("expired")), ("revoked", _("revoked"))]

    def queryset(self, request, queryset):
        now = timezone.now()
        not_expired = Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        return {
            "active": queryset.filter(not_expired, revoked_at__isnull=True),
            "expired": queryset.filter(revoked_at__isnull=True, expires_at__lte=now),
            "revoked": queryset.filter(revoked_at__isnull=False),
        }.get(self.value(), queryset)


class TokenKindFilter(admin.SimpleListFilter):
    """Static tokens (staff issued them) or OAuth access tokens (a consent did). Each OAuth grant leaves an
    expired token behind every hour it is used: unless asked for (a kind or a state), the list hides them."""

    title = _("kind")
    parameter_name = "kind"

    def __init__(self, request, params, model, model_admin):
        self.state_asked = TokenStateFilter.parameter_name in request.GET  # params: the state filter took it
        super().__init__(request, params, model, model_admin)

    def lookups(self, request, model_admin):
        return [("static", _("static")), ("oauth", _("OAuth")), ("all", _("all, with expired OAuth tokens"))]

    def choices(self, changelist):
        for choice in super().choices(changelist):
            if choice["query_string"] == changelist.get_query_string(remove=[self.parameter_name]):
                choice["display"] = _("static, and OAuth tokens not expired")
            yield choice

    def queryset(self, request, queryset):
        if self.value() == "static":
            return queryset.filter(grant__isnull=True)
        if self.value() == "oauth":
            return queryset.filter(grant__isnull=False)
        if self.value() == "all" or self.state_asked:
            return queryset
        return queryset.exclude(grant__isnull=False, expires_at__lte=timezone.now())


@admin.register(ApiToken)
class ApiTokenAdmin(NamesChanges, admin.ModelAdmin):
    form = ApiTokenForm
    # The state first: it is what staff look for, and the row stays readable on a 1366 px screen.
    list_display = [
        "state",
        "name",
        "prefix",
        "scope_list",
        "oauth_grant",
        "expires_at",
        "last_used_at",
        "created_at",
    ]
    list_display_links = ["name"]
    list_filter = [TokenStateFilter, TokenKindFilter]
    list_select_related = ["grant__client", "company_account"]
    search_fields = ["name", "prefix", "acts_for", "company_account__name"]
    readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke_selected"]

    @admin.display(description=_("OAuth grant"))
    def oauth_grant(self, token: ApiToken) -> str:
        if token.grant_id is None:
            return "–"
        url = reverse("admin:oauth_oauthgrant_change", args=[token.grant_id])
        return format_html('<a href="{}">{}</a>', url, token.grant)

    def get_readonly_fields(self, request, token: ApiToken | None = None):
        if token is not None and token.grant_id is not None:  # an OAuth token is what its grant made it
            return [
                *self.readonly_fields,
                "name",
                "scopes",
                "expires_at",
                "rate_limit",
                "oauth_grant",
                "acts_for",
                "audience",
            ]
        return self.readonly_fields

    def get_fields(self, request, token: ApiToken | None = None):
        if token is not None and token.grant_id is not None:
            return self.get_readonly_fields(request, token)
        return super().get_fields(request, token)

    @admin.display(description=_("scopes"))
    def scope_list(self, token: ApiToken) -> str:
        return ", ".join(token.scopes)

    @admin.display(description=_("state"))
    def state(self, token: ApiToken) -> str | Promise:
        if token.revoked_at:
            return _("revoked")
        return _("active") if tokens.is_live(token) else _("expired")

    def save_model(self, request, token: ApiToken, form, change: bool) -> None:
        if not change:
            plain, token.prefix, token.digest = tokens.new_secret()
            request.issued_token = plain  # for response_add only: never stored, never in a cookie
        super().save_model(request, token, form, change)
        if change:  # scopes, expiry or limit: every process forgets the tokens it keeps
            tokens.tokens_changed()

    def delete_model(self, request, token: ApiToken) -> None:
        super().delete_model(request, token)
        tokens.tokens_changed()

    def delete_queryset(self, request, queryset) -> None:
        super().delete_queryset(request, queryset)
        tokens.tokens_changed()

    def response_add(self, request, token: ApiToken, post_url_continue=None):
        """The new token on a page of its own, answered to the saving POST itself: it never travels in
        a redirect, a message cookie or a cached page."""
        plain = getattr(request, "issued_token", None)
        if plain is None:
            return super().response_add(request, token, post_url_continue)
        context = {**self.admin_site.each_context(request), "opts": self.opts, "token": token, "plain": plain}
        response = TemplateResponse(
            request, "admin/access/apitoken/issued.html", {**context, "title": _("New API token")}
        )
        add_never_cache_headers(response)
        return response

    @admin.action(description=_("Revoke the selected tokens"), permissions=["change"])
    def revoke_selected(self, request, queryset) -> None:
        revoked = tokens.revoke_all(queryset)
        names = ", ".join(str(token) for token in revoked) or _("none (all were revoked already)")
        said = _("Revoked at {moment}: {names}.").format(moment=l10n.short(timezone.now()), names=names)
        messages.success(request, said)
