"""What search engines read of a public page: its canonical address and its alternates in each language,
absolute on PUBLIC_BASE_URL, with `x-default` for visitors of any other language."""

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class SeoLinks:
    canonical: str
    alternates: list[tuple[str, str]]  # (hreflang, absolute URL)


def page_links(language: str, path: str, *, default_path: str | None = None) -> SeoLinks:
    """Links of a page that exists under each language prefix (`/de/<path>`, `/en/<path>`). `default_path`
    is where visitors of another language go (the home page negotiates at `/`); else the default
    language's page."""
    base = settings.PUBLIC_BASE_URL

    def url(code: str) -> str:
        return f"{base}/{code}/{path}"

    alternates = [(code, url(code)) for code, _name in settings.LANGUAGES]
    x_default = base + default_path if default_path is not None else url(settings.LANGUAGE_CODE)
    return SeoLinks(canonical=url(language), alternates=[*alternates, ("x-default", x_default)])
