"""The operator profile in the admin: one record, never added twice or deleted; the logo is uploaded here
and kept in the database (no media storage to run). The legal texts: drafts edited in German and English,
published as numbered versions that are never edited or deleted again."""

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from operator_profile import legal, seller, services
from operator_profile.models import PROFILE_ID, REGISTER_DETAILS, LegalText, OperatorProfile

COLOUR = forms.TextInput(attrs={"type": "color"})
# The legal details the imprint and the invoices name.
LEGAL_FIELDS = ("legal_name", "street_address", "postcode", "city", "country", *REGISTER_DETAILS)


class OperatorProfileForm(forms.ModelForm):
    logo_file = forms.FileField(
        label=_("Logo"),
        required=False,
        help_text=format_lazy(
            _("PNG, JPEG or GIF, at most {kb} KB; about 200 × 60 pixels reads well in the page header."),
            kb=services.MAX_LOGO_BYTES // 1024,
        ),
    )
    remove_logo = forms.BooleanField(required=False, label=_("Remove the logo"))
    website = forms.URLField(
        label=OperatorProfile._meta.get_field("website").verbose_name,
        required=False,
        assume_scheme="https",
        help_text=OperatorProfile._meta.get_field("website").help_text,
    )

    class Meta:
        model = OperatorProfile
        fields = [
            "name",
            "phone",
            "email",
            "website",
            "brand_colour",
            "header_colour",
            *LEGAL_FIELDS,
            "iban",
            "bic",
            "foreign_route_vat",
        ]
        widgets = {"brand_colour": COLOUR, "header_colour": COLOUR, "foreign_route_vat": forms.RadioSelect}

    def clean_logo_file(self):
        upload = self.cleaned_data.get("logo_file")
        if upload is None:
            return None
        if upload.size > services.MAX_LOGO_BYTES:
            raise forms.ValidationError(
                _("The logo is %(size)s KB; at most %(limit)s KB.")
                % {"size": upload.size // 1024, "limit": services.MAX_LOGO_BYTES // 1024}
            )
        content = upload.read()
        media_type = services.logo_type(content)
        if media_type is None:
            raise forms.ValidationError(_("Upload a PNG, JPEG or GIF image."))
        return content, media_type

    def save(self, commit=True):
        profile = super().save(commit=False)
        if self.cleaned_data.get("remove_logo"):
            profile.logo, profile.logo_type = None, ""
        elif self.cleaned_data.get("logo_file"):
            profile.logo, profile.logo_type = self.cleaned_data["logo_file"]
        if commit:
            profile.save()
        return profile


@admin.register(OperatorProfile)
class OperatorProfileAdmin(admin.ModelAdmin):
    form = OperatorProfileForm
    fieldsets = [
        (None, {"fields": ["name", "phone", "email", "website"]}),
        (_("Look"), {"fields": ["logo_file", "remove_logo", "brand_colour", "header_colour"]}),
        (
            _("Legal details (imprint and invoices)"),
            {
                "fields": LEGAL_FIELDS,
                "description": _(
                    "Filled into the imprint, terms and privacy notice wherever they name them."
                ),
            },
        ),
        (_("Bank details (collective invoices)"), {"fields": ["iban", "bic"]}),
        (
            _("Rides across the border"),
            {
                "fields": ["foreign_route_vat"],
                "description": _(
                    "Invoices of rides that cross the border (e.g. to Bratislava) show the share of the "
                    "route in Austria. Whether the part abroad carries Austrian VAT is for your tax adviser "
                    "to decide; the setting applies to invoices issued from now on, never to issued ones."
                ),
            },
        ),
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return not OperatorProfile.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context=None):
        """There is one profile: the list goes straight to it."""
        if OperatorProfile.objects.filter(id=PROFILE_ID).exists():
            return HttpResponseRedirect(reverse("admin:company_operatorprofile_change", args=[PROFILE_ID]))
        return super().changelist_view(request, extra_context)

    def save_model(self, request, obj, form, change):
        obj.id = PROFILE_ID
        super().save_model(request, obj, form, change)
        services.profile_changed()
        if not seller.missing(obj):  # invoices that waited for the legal details can be issued now
            seller.details_complete.send(sender=OperatorProfile, profile=obj)


class LegalTextForm(forms.ModelForm):
    publish = forms.BooleanField(
        label=_("Publish this version"),
        required=False,
        help_text=_(
            "Publishing freezes the text as the next version: the pages show it at once, and bookings keep "
            "the terms version they accepted. Leave unticked to save a draft."
        ),
    )

    class Meta:
        model = LegalText
        fields = ["kind", "body_de", "body_en"]
        help_texts = {
            "body_de": format_lazy(
                _(
                    "Blank lines part paragraphs; a line starting with “## ” is a heading, with “- ” a list "
                    "item. These are filled from the operator profile: {placeholders}."
                ),
                placeholders=", ".join("{" + name + "}" for name in legal.PLACEHOLDERS),
            ),
        }


@admin.register(LegalText)
class LegalTextAdmin(admin.ModelAdmin):
    form = LegalTextForm
    list_display = ["kind", "version_shown", "published_at", "created_at"]
    list_filter = ["kind"]

    @admin.display(description=_("version"), ordering="version")
    def version_shown(self, text: LegalText) -> str:
        return str(text.version) if text.version else gettext("draft")

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.published:  # a published version is a record: never edited again
            return ["kind", "version", "published_at", "body_de", "body_en"]
        return ["version", "published_at"]

    def get_fields(self, request, obj=None):
        if obj is not None and obj.published:
            return ["kind", "version", "published_at", "body_de", "body_en"]
        return ["kind", "body_de", "body_en", "publish"]

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return obj is None or not obj.published  # drafts may go; published versions are kept

    def get_changeform_initial_data(self, request: HttpRequest) -> dict:
        """A new version starts from the current one of its kind (`?kind=terms`)."""
        initial = super().get_changeform_initial_data(request)
        kind = initial.get("kind")  # a text: the initial data are the query's last values
        now = legal.current(kind) if kind and isinstance(kind, str) else None
        if now is not None:
            initial.update(body_de=now.body_de, body_en=now.body_en)
        return initial

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.cleaned_data.get("publish"):
            published = legal.publish(obj.pk)
            obj.version, obj.published_at = published.version, published.published_at
            self.message_user(
                request,
                gettext("%(text)s is published: the pages show it now.") % {"text": published},
                messages.SUCCESS,
            )
