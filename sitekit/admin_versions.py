"""Admin pages whose saves and deletions change data every server process keeps in memory: each one moves
the data's shared version once it commits (apikit/versions.py), so all processes read it again."""

from django.contrib import admin
from django.db import transaction

from apikit.versions import SharedVersion


class MovesSharedVersion(admin.ModelAdmin):
    shared_version: SharedVersion

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)  # after the inlines: the whole edit
        transaction.on_commit(self.shared_version.announce)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        transaction.on_commit(self.shared_version.announce)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        transaction.on_commit(self.shared_version.announce)
