from django.contrib import admin
from django.db import transaction

from places import services
from places.models import RatingReview, RatingSnapshot


class RatingReviewInline(admin.StackedInline):
    model = RatingReview
    extra = 0
    max_num = 5  # the contract shows at most five reviews


@admin.register(RatingSnapshot)
class RatingSnapshotAdmin(admin.ModelAdmin):
    list_display = ["__str__", "rating", "user_rating_count", "updated_at"]
    inlines = [RatingReviewInline]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        transaction.on_commit(services.rating_changed)  # every worker reads it again

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        transaction.on_commit(services.rating_changed)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        transaction.on_commit(services.rating_changed)

    def has_add_permission(self, request):
        return not RatingSnapshot.objects.exists()
