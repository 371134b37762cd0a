"""What the invoice and credit-note admins share: documents are issued, never added, changed or deleted
here, and each one's PDF opens from the list."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path

from invoicing import documents
from sitekit.admin import ReadOnlyAdmin


class IssuedDocumentAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_pdf"
        return [
            path("<int:pk>/pdf/", self.admin_site.admin_view(self.download), name=name),
            *super().get_urls(),
        ]

    def download(self, request: HttpRequest, pk: int) -> HttpResponse:
        document = get_object_or_404(self.model, pk=pk)
        if not self.has_view_permission(request, document):
            raise PermissionDenied
        response = HttpResponse(documents.pdf(document), content_type=documents.MEDIA_TYPE)
        response["Content-Disposition"] = f'inline; filename="{document.file_name}"'
        return response
