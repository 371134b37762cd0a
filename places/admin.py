from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from places import budget, services
from places.models import ProviderBudget, RatingReview, RatingSnapshot
from sitekit.admin import NamesChanges, OneRecordAdmin
from sitekit.admin_versions import MovesSharedVersion


class RatingReviewInline(admin.StackedInline):
    model = RatingReview
    extra = 0
    max_num = 5  # the contract shows at most five reviews


@admin.register(RatingSnapshot)
class RatingSnapshotAdmin(NamesChanges, MovesSharedVersion):
    shared_version = services.RATING_SNAPSHOT  # every worker reads the edit again
    list_display = ["__str__", "rating", "user_rating_count", "updated_at"]
    inlines = [RatingReviewInline]

    def has_add_permission(self, request):
        return not RatingSnapshot.objects.exists()


@admin.register(ProviderBudget)
class ProviderBudgetAdmin(OneRecordAdmin, MovesSharedVersion):
    """Today's counts come from the shared cache (places/budget.py)."""

    shared_version = budget.BUDGET  # every worker reads the edit again
    list_display = [
        "__str__",
        "daily_suggestion_calls",
        "suggestions_today",
        "daily_route_calls",
        "routes_today",
    ]
    readonly_fields = ["suggestions_today", "routes_today"]
    fields = ["daily_suggestion_calls", "suggestions_today", "daily_route_calls", "routes_today"]

    @admin.display(description=_("suggestion calls today"))
    def suggestions_today(self, obj):
        return _today(budget.SUGGESTIONS, obj.daily_suggestion_calls)

    @admin.display(description=_("route calls today"))
    def routes_today(self, obj):
        return _today(budget.ROUTES, obj.daily_route_calls)


def _today(kind: str, limit: int | None) -> str:
    used = budget.used_today(kind)
    if used is None:
        return str(_("unknown: the shared cache does not answer"))
    if limit is not None and used > limit:
        # Counted calls beyond the budget were answered offline.
        return str(
            _("%(used)s (budget spent; %(offline)s answered offline)")
            % {"used": used, "offline": used - limit}
        )
    return str(used)
