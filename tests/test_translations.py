"""The German catalogue: every message translated, and the committed .mo compiled from the .po as it is
(a clean clone needs no gettext tools; `make messages` rebuilds both)."""

import gettext

import polib
import pytest

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
