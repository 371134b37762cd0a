"""What the invoice and credit-note admins share: documents are issued, never added, changed or deleted
here, and each one's PDF, and its e-invoice where its company chose one, opens from the list."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from invoicing import documents
from invoicing.e_invoices import files
from sitekit.admin import ReadOnlyAdmin


class IssuedDocumentAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path("<int:pk>/pdf/", self.admin_site.admin_view(self.download), name=f"{name}_pdf"),
            path(
                "<int:pk>/e-invoice/",
                self.admin_site.admin_view(self.download_e_invoice),
                name=f"{name}_e_invoice",
            ),
            *super().get_urls(),
        ]

    def _viewed(self, request: HttpRequest, pk: int):
        document = get_object_or_404(self.model, pk=pk)
        if not self.has_view_permission(request, document):
            raise PermissionDenied
        return document

    def download(self, request: HttpRequest, pk: int) -> HttpResponse:
        document = self._viewed(request, pk)
        response = HttpResponse(documents.pdf(document), content_type=documents.MEDIA_TYPE)
        response["Content-Disposition"] = f'inline; filename="{document.file_name}"'
        return response

    def download_e_invoice(self, request: HttpRequest, pk: int) -> HttpResponse:
        e_invoice = files.e_invoice(self._viewed(request, pk))
        if e_invoice is None:
            raise Http404("no e-invoice: the document's customer chose none")
        response = HttpResponse(e_invoice.content, content_type=e_invoice.media_type)
        response["Content-Disposition"] = f'attachment; filename="{e_invoice.name}"'
        return response

    @admin.display(description=_("documents"))
    def files_shown(self, document) -> str:
        """Its PDF, and its e-invoice where its company chose one."""
        name = f"admin:{self.opts.app_label}_{self.opts.model_name}"
        pdf = format_html('<a href="{}">{}</a>', reverse(f"{name}_pdf", args=[document.pk]), _("PDF"))
        if files.e_invoicing_account(document) is None:
            return pdf
        return format_html(
            '{} · <a href="{}">{}</a>', pdf, reverse(f"{name}_e_invoice", args=[document.pk]), _("e-invoice")
        )
