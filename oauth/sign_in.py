"""GET|POST /oauth/sign-in: the traveller's sign-in page (a door: oauth/travellers.py holds the rules).
Step one asks for the e-mail address and mails a code; step two takes the code and hands over to the
consent page. In the visitor's language (`?lang=`, else the language cookie or the browser's), never cached,
never framed, no script."""

from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_deny

from apikit.clients import client_address
from oauth import travellers
from oauth.clients import client_of
from oauth.pending import pending_of
from sitekit.i18n import language_links, supported
from sitekit.methods import allow

SIGN_IN_PATH = "/oauth/sign-in"
CONSENT_PATH = "/oauth/consent"
ASSISTANTS_PATH = "/oauth/assistants"  # the traveller's assistants (?next=)
MY_DATA_PATH = "/my-data"  # what the service holds about the traveller: a copy, its erasure (?next=)
DESTINATIONS = (ASSISTANTS_PATH, MY_DATA_PATH)  # the only pages besides the consent a sign-in leads to
ASKED_KEY = "oauth.sign_in"  # the address this browser asked a code for, while the code is awaited


class AddressForm(forms.Form):
    email = forms.EmailField(label=_("Your e-mail address"), max_length=254)


class CodeForm(forms.Form):
    code = forms.CharField(label=_("The 6-digit code from the e-mail"), max_length=20)


@never_cache
@xframe_options_deny
@allow("GET", "HEAD", "POST")
def sign_in_page(request: HttpRequest) -> HttpResponse:
    if request.GET.get("next") in DESTINATIONS:
        travellers.sign_in_for(request, request.GET["next"])
    chosen = supported(request.GET.get("lang"))
    with translation.override(chosen or translation.get_language()):
        response = _answer(request)
    if chosen:  # the consent page after this one speaks the chosen language too
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            chosen,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response


def _answer(request: HttpRequest) -> HttpResponse:
    asked = request.session.get(ASKED_KEY)
    if request.method == "POST":
        if request.POST.get("step") == "code":  # no address asked for (yet, or any more): step one
            return _check(request, asked) if asked else _page(request, "email", form=AddressForm())
        return _ask(request)
    if "another" in request.GET or not asked:
        signed_in = None if "another" in request.GET else travellers.signed_in_traveller(request)
        return _page(request, "email", form=AddressForm(), signed_in=signed_in)
    return _page(request, "code", form=CodeForm(), email=asked)


def _ask(request: HttpRequest) -> HttpResponse:
    form = AddressForm(request.POST)
    if not form.is_valid():
        return _page(request, "email", form=form)
    email = travellers.normalized(form.cleaned_data["email"])
    travellers.sign_out(request)  # a new address: whoever was signed in here no longer is
    request.session[ASKED_KEY] = email
    if request.session.session_key is None:
        request.session.save()  # the code belongs to this browser's session: it needs its key now
    assert request.session.session_key is not None  # noqa: S101  (save() gave it one)
    asked = travellers.request_code(
        email=email,
        session_key=request.session.session_key,
        client=client_address(request),
        language=translation.get_language(),
    )
    if not asked.sent:
        request.session.pop(ASKED_KEY, None)
        return _page(request, "email", form=form, retry_minutes=asked.retry_minutes, status=429)
    return HttpResponseRedirect(_here(request))  # a reload does not mail another code


def _check(request: HttpRequest, email: str) -> HttpResponse:
    form = CodeForm(request.POST)
    if not form.is_valid():
        return _page(request, "code", form=form, email=email)
    checked = travellers.check_code(
        email=email, session_key=request.session.session_key or "", code=form.cleaned_data["code"]
    )
    if checked.verdict == travellers.Verdict.SIGNED_IN:
        request.session.pop(ASKED_KEY, None)
        after = _after_sign_in(request)
        travellers.sign_in(request, email)
        travellers.forget_destination(request)
        return HttpResponseRedirect(after)
    return _page(request, "code", form=CodeForm(), email=email, checked=checked)


def _after_sign_in(request: HttpRequest) -> str:
    """The page the traveller came for, else the consent of a waiting authorization request, else their
    assistants."""
    chosen = travellers.destination(request)
    if chosen in DESTINATIONS:
        return chosen
    return ASSISTANTS_PATH if pending_of(request) is None else CONSENT_PATH


def _page(request: HttpRequest, step: str, *, status: int = 200, **context) -> HttpResponse:
    pending = pending_of(request)
    after = _after_sign_in(request)
    return render(
        request,
        "oauth/sign_in.html",
        {
            "step": step,
            # who the traveller signs in for, unless they came to see their assistants
            "asking": client_of(pending.client_id) if pending and after == CONSENT_PATH else None,
            "for_assistants": after == ASSISTANTS_PATH,
            "for_my_data": after == MY_DATA_PATH,
            "continue_url": after,
            "language_links": language_links(request),
            "another_url": _here(request, another="1"),
            **context,
        },
        status=status,
    )


def sign_in_url(destination: str, language: str | None, **query: str) -> str:
    """The sign-in leading to `destination` (one of DESTINATIONS), in `language` when one was chosen."""
    kept = {"lang": language} if language else {}
    return f"{SIGN_IN_PATH}?{urlencode({**query, 'next': destination, **kept})}"


def _here(request: HttpRequest, **query: str) -> str:
    kept = {"lang": request.GET["lang"]} if supported(request.GET.get("lang")) else {}
    words = urlencode({**kept, **query})
    return f"{SIGN_IN_PATH}?{words}" if words else SIGN_IN_PATH
