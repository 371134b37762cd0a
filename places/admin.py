from django.contrib import admin

from places.models import RatingReview, RatingSnapshot


class RatingReviewInline(admin.StackedInline):
    model = RatingReview
    extra = 0
    max_num = 5  # the contract shows at most five reviews


@admin.register(RatingSnapshot)
class RatingSnapshotAdmin(admin.ModelAdmin):
    list_display = ["__str__", "rating", "user_rating_count", "updated_at"]
    inlines = [RatingReviewInline]

    def has_add_permission(self, request):
        return not RatingSnapshot.objects.exists()
