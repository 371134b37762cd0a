"""GET|POST /my-data: a traveller's own page of what the service holds about them, reached through the
sign-in with a mailed code (oauth/sign_in.py), like their assistants page: a copy as one JSON file
(/my-data/copy.json) and the erasure, which says what stays and until when (a door: privacy/traveller_data.py
holds the rules). In the visitor's language (`?lang=`), never cached, never framed."""

from django import forms
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_deny

from oauth.sign_in import MY_DATA_PATH, sign_in_url
from oauth.travellers import signed_in_traveller
from privacy import traveller_data
from privacy.models import DataRequest
from sitekit.i18n import language_links, supported
from sitekit.methods import allow


class ErasureForm(forms.Form):
    confirm = forms.BooleanField(
        label=_("I understand: my details are removed from the bookings listed above and cannot be restored.")
    )


@never_cache
@xframe_options_deny
@allow("GET", "HEAD", "POST")
def my_data_page(request: HttpRequest) -> HttpResponse:
    chosen = supported(request.GET.get("lang"))
    with translation.override(chosen or translation.get_language()):
        traveller = signed_in_traveller(request)
        if not traveller:
            return HttpResponseRedirect(sign_in_url(MY_DATA_PATH, chosen))
        form, erased = ErasureForm(request.POST if request.method == "POST" else None), None
        if request.method == "POST" and form.is_valid():
            _, erased = traveller_data.erase(traveller, channel=DataRequest.Channel.TRAVELLER)
            form = ErasureForm()
        context = {
            "traveller": traveller,
            "plan": traveller_data.plan(traveller),
            "erased": erased,
            "form": form,
            "copy_url": f"{MY_DATA_PATH}/copy.json",
            "another_url": sign_in_url(MY_DATA_PATH, chosen, another="1"),
            "language_links": language_links(request),
        }
        return render(request, "privacy/my_data.html", context)


@never_cache
@allow("GET", "HEAD")
def my_data_copy(request: HttpRequest) -> HttpResponse:
    traveller = signed_in_traveller(request)
    if not traveller:
        return HttpResponseRedirect(sign_in_url(MY_DATA_PATH, None))
    if request.method == "HEAD":  # what a download would be: nothing handed out, nothing logged
        copy = traveller_data.copy_of(traveller)
    else:
        _, copy = traveller_data.copied(traveller, channel=DataRequest.Channel.TRAVELLER)
    return traveller_data.download(copy, f"my-data-{timezone.localdate().isoformat()}.json")
