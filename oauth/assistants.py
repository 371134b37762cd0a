"""GET|POST /oauth/assistants: the traveller's own page of the assistants they allowed to act for them, and
the button that ends one (a door: oauth/grants.py holds the rules). Reached through the same sign-in
with a mailed code as the consent; in the visitor's language (`?lang=`), never cached, never framed."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from oauth import grants
from oauth.sign_in import ASSISTANTS_PATH, sign_in_url
from oauth.travellers import signed_in_traveller
from oauth.views import scope_words
from sitekit.i18n import language_links, supported
from sitekit.methods import allow


@never_cache
@allow("GET", "HEAD", "POST")
def assistants_page(request: HttpRequest) -> HttpResponse:
    chosen = supported(request.GET.get("lang"))
    with translation.override(chosen or translation.get_language()):
        traveller = signed_in_traveller(request)
        if not traveller:
            return HttpResponseRedirect(sign_in_url(ASSISTANTS_PATH, chosen))
        if request.method == "POST":
            return _end(request, traveller)
        shown = grants.allowed_assistants(email=traveller)
        context = {
            "traveller": traveller,
            "assistants": [
                (assistant, [scope_words(scope) for scope in assistant.scopes]) for assistant in shown
            ],
            "refresh_days": settings.OAUTH_REFRESH_TOKEN_DAYS,
            "another_url": sign_in_url(ASSISTANTS_PATH, chosen, another="1"),
            "language_links": language_links(request),
        }
        return render(request, "oauth/assistants.html", context)


def _end(request: HttpRequest, traveller: str) -> HttpResponse:
    chosen = request.POST.get("assistant", "")
    ended = grants.end_assistant(email=traveller, client_pk=int(chosen)) if chosen.isdigit() else []
    if ended:
        name = ended[0].client.name or _("The assistant")
        messages.success(request, _("{name} can no longer act for you.").format(name=name))
    else:
        messages.info(request, _("This assistant had no access left to end."))
    return HttpResponseRedirect(request.get_full_path())
