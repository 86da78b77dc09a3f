"""Every message the app shows is in both catalogues, and German is really translated."""

from __future__ import annotations

import re
import string

from companion.core.cubes import COLOURS
from companion.ui import i18n, palette
from companion.ui.i18n_extract import all_messages


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_message_is_in_both_catalogues() -> None:
    messages = all_messages()
    assert len(messages) > 100
    for language in i18n.LANGUAGES:
        path = i18n.catalogue_path(language)
        entries = i18n.parse_po(path.read_text(encoding="utf-8"), str(path))
        missing = sorted(m for m in messages if m not in entries)
        assert not missing, f"{language} lacks {missing[:5]}"


def test_german_translations_keep_the_placeholders() -> None:
    german = i18n.load("de")
    changed = 0
    for message in all_messages():
        translated = german.gettext(message)
        assert _fields(translated) == _fields(message), (message, translated)
        changed += translated != message
    assert changed > 0.8 * len(all_messages())


def test_compiled_catalogue_round_trips_through_gettext() -> None:
    entries = {"": "Content-Type: text/plain; charset=UTF-8\n", "Undo": "Zurück", "ä": "ö"}
    import gettext
    import io

    translations = gettext.GNUTranslations(io.BytesIO(i18n.compile_mo(entries)))
    assert translations.gettext("Undo") == "Zurück"
    assert translations.gettext("ä") == "ö"
    assert translations.gettext("missing") == "missing"


def test_switching_language_changes_text() -> None:
    try:
        i18n.set_language("de")
        assert i18n.tr("Undo") == "Rückgängig"
        i18n.set_language("en")
        assert i18n.tr("Undo") == "Undo"
    finally:
        i18n.set_language("en")


def test_colours_differ_by_code_and_icon_not_only_by_paint() -> None:
    codes = {colour.code for colour in COLOURS}
    shapes = {palette.shape(colour) for colour in COLOURS}
    assert len(codes) == len(shapes) == len(COLOURS)
    for colour in COLOURS:
        points = palette.outline_points(palette.shape(colour), 0, 0, 10)
        assert len(points) >= 6 and len(points) % 2 == 0
    assert re.fullmatch(r"[A-Z][a-z]", COLOURS[0].code)
