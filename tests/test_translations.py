"""The German catalogue: every message translated, and the committed .mo compiled from the .po as it is
(a clean clone needs no gettext tools; `make messages` rebuilds both)."""

import ast
import gettext

import polib
import pytest

from tests.imports import PROJECT_PACKAGES
from tests.processes import ROOT

CATALOGUES = sorted((ROOT / "locale").glob("*/LC_MESSAGES/django.po"))


@pytest.mark.parametrize("source", CATALOGUES, ids=lambda path: path.parts[-3])
def test_every_message_is_translated_and_compiled(source):
    catalogue = polib.pofile(str(source))
    assert catalogue.untranslated_entries() == [] and catalogue.fuzzy_entries() == []
    with source.with_suffix(".mo").open("rb") as compiled:
        translations = gettext.GNUTranslations(compiled)
    for entry in catalogue.translated_entries():
        if entry.msgid_plural:
            for count, form in ((1, 0), (2, 1)):
                assert (
                    translations.ngettext(entry.msgid, entry.msgid_plural, count) == entry.msgstr_plural[form]
                )
        else:
            assert translations.gettext(entry.msgid) == entry.msgstr, entry.msgid


def test_there_is_a_german_catalogue():
    assert [path.parts[-3] for path in CATALOGUES] == ["de"]


# The calls that mark a text for the catalogue (gettext's keywords, and `said` for history entries).
MARKERS = {"_", "gettext", "gettext_lazy", "said", "ngettext", "ngettext_lazy"}
APPS = PROJECT_PACKAGES


def marked_texts():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in MARKERS
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    yield f"{path.relative_to(ROOT)}:{node.lineno}", node.args[0].value


def test_every_text_marked_in_the_code_is_in_the_german_catalogue():
    """A text marked for translation but never added to the catalogue shows in English to German staff."""
    catalogue = {entry.msgid for entry in polib.pofile(str(ROOT / "locale/de/LC_MESSAGES/django.po"))}
    missing = [(where, text) for where, text in marked_texts() if text not in catalogue]
    assert missing == []


def test_no_message_renames_a_month_or_a_weekday():
    """Our catalogue comes before Django's: a msgid Django's dates also use ("May") must keep its meaning
    there, or every German date reads "14. Darf 2030"."""
    from django.utils import dates, translation

    words = [
        str(word)
        for table in (
            dates.MONTHS,
            dates.MONTHS_3,
            dates.MONTHS_ALT,
            dates.MONTHS_AP,
            dates.WEEKDAYS,
            dates.WEEKDAYS_ABBR,
        )
        for word in table.values()
    ]
    ours = {
        entry.msgid for entry in polib.pofile(str(CATALOGUES[0])).translated_entries() if not entry.msgctxt
    }
    with translation.override("en"):
        english = {str(word) for word in words}
    assert english & ours == set()
