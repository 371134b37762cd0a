"""The Content-Security-Policy allows no inline style or script (config/settings.py): no template of ours
may carry a <style> element, a style= attribute, an inline <script> or an on…= handler, and no admin module
may write one into its HTML. The browser tests (tests/browser/test_admin_pages.py) see what the pages do
in Chromium; this finds the same mistakes in the source, without a browser, and names the file and line."""

import re
from pathlib import Path

from tests.imports import PROJECT_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
APPS = PROJECT_PACKAGES

INLINE_IN_HTML = {
    "a <style> element": re.compile(r"<style\b", re.I),
    "a style= attribute": re.compile(r"\sstyle\s*=", re.I),
    "an inline <script>": re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I),
    "an on…= event handler": re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I),
    "a javascript: link": re.compile(r"""href\s*=\s*["']?javascript:""", re.I),
}
# Admin modules that build HTML (format_html, mark_safe) must not style it inline either.
INLINE_IN_PYTHON = {"a style= attribute": re.compile(r"""style\s*=\s*\\?["']""")}


COMMENT = re.compile(r"\{% comment %\}.*?\{% endcomment %\}|\{#.*?#\}", re.S)


def templates() -> list[Path]:
    """Every page template; e-mails are not pages (no CSP applies, and mail programs want inline style)."""
    folders = [ROOT / "templates", *(ROOT / app / "templates" for app in APPS)]
    found = (path for folder in folders for path in folder.rglob("*.html"))
    return sorted(path for path in found if "emails" not in path.parts)


def admin_modules() -> list[Path]:
    return sorted(path for app in APPS for path in (ROOT / app).rglob("admin*.py")) + sorted(
        path for app in APPS for path in (ROOT / app).glob("admin/*.py")
    )


def findings(paths: list[Path], patterns: dict[str, re.Pattern]) -> list[str]:
    found = []
    for path in paths:
        text = COMMENT.sub(lambda comment: "\n" * comment[0].count("\n"), path.read_text(encoding="utf-8"))
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        for number, line in enumerate(text.splitlines(), start=1):
            found += [f"{name}:{number}: {what}" for what, rule in patterns.items() if rule.search(line)]
    return found


def test_the_rules_find_what_the_csp_refuses(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(
        '<style>b{}</style>\n<td style="x">\n<script>go()</script>\n<script src="/s.js"></script>\n'
        '<button onclick="go()">\n<a href="javascript:go()">\n<p class="style">\n',
        encoding="utf-8",
    )
    assert [line.split(": ", 1)[1] for line in findings([page], INLINE_IN_HTML)] == [
        "a <style> element",
        "a style= attribute",
        "an inline <script>",
        "an on…= event handler",
        "a javascript: link",
    ]


def test_no_template_of_ours_has_inline_style_or_script():
    assert len(templates()) > 20  # the search reaches the templates (admin, booking pages)
    assert findings(templates(), INLINE_IN_HTML) == []


def test_no_admin_module_writes_inline_style():
    assert any(path.parts[-2:] == ("admin", "bookings.py") for path in admin_modules())
    assert findings(admin_modules(), INLINE_IN_PYTHON) == []
