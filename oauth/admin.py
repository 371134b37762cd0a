"""The admin's OAuth clients and grants (the static API tokens and their grants' links: access/admin.py).
Clients register themselves; staff set what an agency's client may hold (its agency scopes: that is the
approval), its rate limit, and block it. Grants are consents: staff see them and revoke them."""

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from access import tokens
from access.models import ApiToken, Scope
from oauth.grants import revoke_grant
from oauth.models import OAuthClient, OAuthGrant
from sitekit import l10n
from sitekit.admin import NamesChanges, ReadOnlyAdmin

SHOWN_ID = 40  # characters of a client ID in the list (a metadata document's URL can be 2000)


def staff_name(request) -> str:
    return f"staff {request.user.get_username()}"


class OAuthClientForm(forms.ModelForm):
    agency_scopes = forms.MultipleChoiceField(
        label=_("agency scopes"),
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_(
            "Ticking scopes approves this client for an agency: a staff member signed in here who then opens "
            "its authorization link may consent for the operator, within these scopes. Empty: only "
            "travellers may consent, for their own bookings. Unticking a scope revokes the agency's grants "
            "that hold it."
        ),
    )

    class Meta:
        model = OAuthClient
        fields = ["agency_scopes", "rate_limit"]


class BlockedFilter(admin.SimpleListFilter):
    title = _("blocked")
    parameter_name = "blocked"

    def lookups(self, request, model_admin):
        return [("no", _("not blocked")), ("yes", _("blocked"))]

    def queryset(self, request, queryset):
        return {
            "no": queryset.filter(blocked_at__isnull=True),
            "yes": queryset.filter(blocked_at__isnull=False),
        }.get(self.value(), queryset)


@admin.register(OAuthClient)
class OAuthClientAdmin(NamesChanges, admin.ModelAdmin):
    form = OAuthClientForm
    list_display = ["name", "short_client_id", "registration", "created_at", "blocked", "live_grants"]
    list_filter = [BlockedFilter, "registration"]
    search_fields = ["name", "client_id"]
    readonly_fields = [
        "name",
        "client_id",
        "registration",
        "redirect_uri_list",
        "client_uri",
        "logo_uri",
        "token_endpoint_auth_method",
        "created_at",
        "metadata_fetched_at",
        "blocked_at",
        "metadata",
    ]
    fieldsets = [
        (None, {"fields": ["name", "client_id", "registration", "created_at", "blocked_at"]}),
        (_("What staff decide"), {"fields": ["agency_scopes", "rate_limit"]}),
        (
            _("As the client describes itself"),
            {
                "fields": [
                    "redirect_uri_list",
                    "client_uri",
                    "logo_uri",
                    "token_endpoint_auth_method",
                    "metadata_fetched_at",
                    "metadata",
                ]
            },
        ),
    ]
    actions = ["block_selected", "unblock_selected"]

    def get_queryset(self, request):
        live = Count("grants", filter=Q(grants__revoked_at__isnull=True))
        return super().get_queryset(request).annotate(live_grants=live)

    def has_add_permission(self, request) -> bool:
        return False  # clients register themselves (dynamic registration or a metadata document)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its grants and tokens point at it: staff block it instead

    @admin.display(description=_("client ID"), ordering="client_id")
    def short_client_id(self, client: OAuthClient) -> str:
        shown = (
            client.client_id if len(client.client_id) <= SHOWN_ID else client.client_id[: SHOWN_ID - 1] + "…"
        )
        return format_html('<span title="{}">{}</span>', client.client_id, shown)

    @admin.display(description=_("blocked"), boolean=True, ordering="blocked_at")
    def blocked(self, client: OAuthClient) -> bool:
        return client.blocked_at is not None

    @admin.display(description=_("live grants"), ordering="live_grants")
    def live_grants(self, client: OAuthClient) -> int:
        return client.live_grants  # type: ignore[attr-defined]  # annotated by get_queryset

    @admin.display(description=_("redirect URIs"))
    def redirect_uri_list(self, client: OAuthClient) -> str:
        return ", ".join(str(uri) for uri in client.redirect_uris) or "–"

    def save_model(self, request, client: OAuthClient, form, change: bool) -> None:
        super().save_model(request, client, form, change)
        if "rate_limit" in form.changed_data:  # its live tokens count with the new limit from now on
            ApiToken.objects.filter(grant__client=client, revoked_at__isnull=True).update(
                rate_limit=client.rate_limit
            )
            tokens.tokens_changed()
        allowed = set(client.agency_scopes)
        for grant in client.grants.filter(subject=OAuthGrant.Subject.AGENCY, revoked_at__isnull=True):
            if not set(grant.scopes) <= allowed:
                revoke_grant(grant, actor=staff_name(request))
                messages.warning(
                    request,
                    _(
                        "The agency's grant of {created} held a scope no longer allowed: it is revoked."
                    ).format(created=l10n.short(grant.created_at)),
                )

    @admin.action(description=_("Block the selected clients (revokes their grants)"), permissions=["change"])
    def block_selected(self, request, queryset) -> None:
        now, revoked = timezone.now(), 0
        for client in queryset.filter(blocked_at__isnull=True):
            OAuthClient.objects.filter(pk=client.pk).update(blocked_at=now)
            for grant in client.grants.filter(revoked_at__isnull=True):
                revoke_grant(grant, actor=staff_name(request))
                revoked += 1
        messages.success(
            request,
            ngettext("Blocked; %(count)d grant revoked.", "Blocked; %(count)d grants revoked.", revoked)
            % {"count": revoked},
        )

    @admin.action(description=_("Unblock the selected clients"), permissions=["change"])
    def unblock_selected(self, request, queryset) -> None:
        count = queryset.filter(blocked_at__isnull=False).update(blocked_at=None)
        messages.success(request, _("Unblocked: %(count)d.") % {"count": count})


class GrantStateFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("live", _("live")), ("revoked", _("revoked"))]

    def queryset(self, request, queryset):
        return {
            "live": queryset.filter(revoked_at__isnull=True),
            "revoked": queryset.filter(revoked_at__isnull=False),
        }.get(self.value(), queryset)


@admin.register(OAuthGrant)
class OAuthGrantAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Read-only: only a consent creates a grant, a consent is changed by giving it again and ended with the
    action "Revoke", and revoked grants stay, to tell who allowed what."""

    list_display = [
        "client",
        "subject",
        "traveller_email",
        "scope_list",
        "resource",
        "created_at",
        "revoked_at",
    ]
    list_filter = [GrantStateFilter, "subject", "client"]
    list_select_related = ["client"]
    search_fields = ["traveller_email", "client__name", "client__client_id"]
    actions = ["revoke_selected"]
    fields = [
        "client",
        "subject",
        "traveller_email",
        "approved_by",
        "scope_list",
        "resource",
        "created_at",
        "revoked_at",
        "live_tokens",
    ]
    readonly_fields = fields  # type: ignore[assignment]  # plain names, no fieldset groups

    def has_revoke_permission(self, request) -> bool:
        return admin.ModelAdmin.has_change_permission(
            self, request
        )  # staff's own right, past the read-only page

    @admin.display(description=_("scopes"))
    def scope_list(self, grant: OAuthGrant) -> str:
        return ", ".join(grant.scopes)

    @admin.display(description=_("live access tokens"))
    def live_tokens(self, grant: OAuthGrant) -> int:
        now = timezone.now()
        return grant.access_tokens.filter(revoked_at__isnull=True, expires_at__gt=now).count()

    @admin.action(description=_("Revoke the selected grants"), permissions=["revoke"])
    def revoke_selected(self, request, queryset) -> None:
        live = list(queryset.filter(revoked_at__isnull=True))
        for grant in live:
            revoke_grant(grant, actor=staff_name(request))
        names = ", ".join(str(grant) for grant in live) or _("none (all were revoked already)")
        messages.success(request, _("Revoked: {names}.").format(names=names))
