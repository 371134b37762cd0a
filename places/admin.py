from django.contrib import admin

from chauffeur.admin import NamesChanges
from chauffeur.admin_versions import MovesSharedVersion
from places import services
from places.models import RatingReview, RatingSnapshot


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
