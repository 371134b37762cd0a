"""The operator profile in the admin: one record, never added twice or deleted; the logo is uploaded here
and kept in the database (no media storage to run)."""

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from company import services
from company.models import PROFILE_ID, OperatorProfile

COLOUR = forms.TextInput(attrs={"type": "color"})


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
        fields = ["name", "phone", "email", "website", "brand_colour", "header_colour"]
        widgets = {"brand_colour": COLOUR, "header_colour": COLOUR}

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
