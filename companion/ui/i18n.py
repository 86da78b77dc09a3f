"""English and German text from gettext catalogues; every word the app shows comes from here.

The catalogues are the `.po` files under `locale/`. They are compiled to gettext's binary `.mo`
form in memory when first used (the same format `msgfmt` writes), so there is no build step and
no stale `.mo` file can ever disagree with its `.po`.
"""

from __future__ import annotations

import ast
import gettext
import io
import struct
from pathlib import Path

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES: tuple[str, ...] = ("en", "de")


class CatalogueError(ValueError):
    """A `.po` file that cannot be parsed; the message names the file and line."""


def parse_po(text: str, source: str = "<po>") -> dict[str, str]:
    """The msgid -> msgstr pairs of a `.po` file (plural forms are not used by this app).

    Untranslated entries (empty msgstr) are left out, so gettext falls back to the msgid.
    The header entry (empty msgid) is kept: it carries the charset.
    """
    entries: dict[str, str] = {}
    msgid: list[str] | None = None
    msgstr: list[str] | None = None
    current: list[str] | None = None

    def flush() -> None:
        if msgid is not None and msgstr is not None:
            key, value = "".join(msgid), "".join(msgstr)
            if value:
                entries[key] = value

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgid "):
            flush()
            msgid, msgstr = [], None
            current = msgid
            line = line[len("msgid ") :]
        elif line.startswith("msgstr "):
            msgstr = []
            current = msgstr
            line = line[len("msgstr ") :]
        if current is None or not line.startswith('"'):
            raise CatalogueError(f"{source}:{number}: cannot read {raw!r}")
        try:
            current.append(ast.literal_eval(line))
        except (ValueError, SyntaxError) as error:
            raise CatalogueError(f"{source}:{number}: bad string {raw!r}") from error
    flush()
    return entries


def compile_mo(entries: dict[str, str]) -> bytes:
    """The entries as a GNU `.mo` file (little-endian, no hash table), as `msgfmt` would write."""
    keys = sorted(entries)
    ids = b""
    strs = b""
    offsets: list[tuple[int, int, int, int]] = []
    for key in keys:
        id_bytes, str_bytes = key.encode(), entries[key].encode()
        offsets.append((len(ids), len(id_bytes), len(strs), len(str_bytes)))
        ids += id_bytes + b"\0"
        strs += str_bytes + b"\0"
    header_size = 7 * 4
    key_table = header_size
    value_table = key_table + len(keys) * 8
    ids_start = value_table + len(keys) * 8
    strs_start = ids_start + len(ids)
    out = struct.pack("<Iiiiiii", 0x950412DE, 0, len(keys), key_table, value_table, 0, 0)
    for id_offset, id_length, _, _ in offsets:
        out += struct.pack("<ii", id_length, ids_start + id_offset)
    for _, _, str_offset, str_length in offsets:
        out += struct.pack("<ii", str_length, strs_start + str_offset)
    return out + ids + strs


def catalogue_path(language: str) -> Path:
    """Where the `.po` file of a language lives."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(language: str) -> gettext.NullTranslations:
    """The translations of one language; raises ValueError naming the languages we have."""
    if language not in LANGUAGES:
        raise ValueError(f"language {language!r} is not available; choose one of {LANGUAGES}")
    path = catalogue_path(language)
    entries = parse_po(path.read_text(encoding="utf-8"), str(path))
    return gettext.GNUTranslations(io.BytesIO(compile_mo(entries)))


class _Current:
    """The language the app speaks; one per process, like Kivy's window."""

    language = "en"
    translations: gettext.NullTranslations | None = None


def set_language(language: str) -> None:
    """Switch every later `tr` call to this language (screens built before keep their text)."""
    _Current.translations = load(language)
    _Current.language = language


def language() -> str:
    """The language in use, 'en' or 'de'."""
    return _Current.language


def tr(message: str) -> str:
    """The message in the current language; the English msgid if it is not translated."""
    if _Current.translations is None:
        _Current.translations = load(_Current.language)
    return _Current.translations.gettext(message)


def N_(message: str) -> str:
    """Marks a message for the catalogue where it is defined; `tr` translates it where shown."""
    return message


def trf(message: str, **values: object) -> str:
    """`tr` then `str.format` with named values, so translators can move the values around."""
    return tr(message).format(**values)
