"""The traveller's browser for the authorization step, driven with `requests.Session`: it opens the URL an
OAuth client produced, follows the service to /oauth/sign-in, types the e-mail address, reads the code the
worker mailed from the sink, types it, allows (or denies) on /oauth/consent, and hands back the redirect to
the client's redirect_uri (code, state, iss) without following it: the test gives it to the client."""

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import requests

from tests.mcp_endpoint.oauth.harness import OAuthLive


@dataclass
class Form:
    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)  # hidden and pre-filled inputs
    names: set[str] = field(default_factory=set)  # every input, select or button name
    buttons: list[tuple[str, str]] = field(default_factory=list)  # (name, value) of submit buttons


class Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append(
                Form(attributes.get("action") or "", (attributes.get("method") or "get").lower())
            )
            return
        if not self.forms or not (name := attributes.get("name")):
            return
        form = self.forms[-1]
        form.names.add(name)
        kind = (attributes.get("type") or ("submit" if tag == "button" else "text")).lower()
        if kind == "submit":
            form.buttons.append((name, attributes.get("value") or ""))
        elif kind in {"checkbox", "radio"}:
            if "checked" in attributes:
                form.fields[name] = attributes.get("value") or "on"
        elif tag in {"input", "textarea"}:
            form.fields[name] = attributes.get("value") or ""


class Browser:
    """One browser (one cookie jar): a traveller signed in once stays signed in for the next consent."""

    def __init__(self, live: OAuthLive) -> None:
        self.live = live
        self.session = requests.Session()
        self.pages: list[tuple[str, int, str]] = []  # (url, status, html) of every page it showed
        self.mails_before = 0

    def open(self, url: str, *, data: dict | None = None) -> requests.Response | str:
        """GET (or POST `data`) and follow redirects within the service; a redirect elsewhere (the client's
        redirect_uri) is returned as its URL, unfollowed."""
        method = "POST" if data is not None else "GET"
        while True:
            response = self.session.request(method, url, data=data, allow_redirects=False, timeout=30)
            if response.status_code in {301, 302, 303, 307, 308}:
                location = urljoin(url, response.headers["Location"])
                if urlsplit(location).netloc != urlsplit(self.live.base).netloc:
                    return location
                url, method, data = location, "GET", None
                continue
            self.pages.append((response.url, response.status_code, response.text))
            return response

    def authorize(self, url: str, *, email: str, decision: str = "allow") -> str:
        """The whole authorization step: the redirect URL to give the client."""
        page = self.open(url)
        for _ in range(6):
            if isinstance(page, str):
                return page
            assert page.status_code == 200, f"{page.url} answered {page.status_code}:\n{page.text[:2000]}"
            form = self.form(page)
            if "code" in form.names:
                # the code the e-mail step asked for: the first mail after those it had before
                code = self.live.mailbox.code_for(email, seen=self.mails_before)
                page = self.submit(page, form, code=code)
            elif "email" in form.names:
                self.mails_before = len(self.live.mailbox.to(email))
                page = self.submit(page, form, email=email)
            elif "decision" in form.names:
                page = self.submit(page, form, decision=decision)
            else:
                raise AssertionError(f"no sign-in, code or consent form on {page.url}:\n{page.text[:2000]}")
        raise AssertionError(f"the authorization did not end in a redirect: {[p[0] for p in self.pages]}")

    def form(self, page: requests.Response) -> Form:
        parser = Forms()
        parser.feed(page.text)
        wanted = [
            form
            for form in parser.forms
            if form.method == "post" and form.names & {"email", "code", "decision"}
        ]
        assert wanted, f"no form on {page.url}:\n{page.text[:2000]}"
        return wanted[0]

    def submit(self, page: requests.Response, form: Form, **values: str) -> requests.Response | str:
        data = {**form.fields, **values}
        action = urljoin(page.url, form.action) if form.action else page.url
        return self.open(action, data=data)

    @property
    def consent_page(self) -> str:
        """The HTML of the last consent page shown."""
        pages = [html for url, _, html in self.pages if "/oauth/consent" in url]
        assert pages, [url for url, _, _ in self.pages]
        return pages[-1]
