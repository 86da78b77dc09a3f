"""Finds every message the app shows (tr, trf and N_ calls in .py and .kv files) and keeps the
catalogues complete: `python -m companion.ui.i18n_extract` adds missing entries to each .po."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from companion.ui.i18n import LANGUAGES, catalogue_path, parse_po

PACKAGE = Path(__file__).parent
_MARKERS = {"tr", "trf", "N_"}
_KV_CALL = re.compile(r"""\btr\(\s*"((?:[^"\\]|\\.)*)"\s*\)""")


def messages_in_python(path: Path) -> set[str]:
    """Literal first arguments of tr/trf/N_ calls in a Python file (concatenation included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _MARKERS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


def messages_in_kv(path: Path) -> set[str]:
    """Literal arguments of tr("...") in a .kv file."""
    text = path.read_text(encoding="utf-8")
    return {ast.literal_eval(f'"{m}"') for m in _KV_CALL.findall(text)}


def all_messages() -> set[str]:
    """Every message of the app."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        found |= messages_in_python(path)
    for path in PACKAGE.rglob("*.kv"):
        found |= messages_in_kv(path)
    return found


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def update(language: str) -> list[str]:
    """Append an empty entry for every message missing from the language's .po; returns them."""
    path = catalogue_path(language)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        header = (
            'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
            f'"Language: {language}\\n"\n\n'
        )
        path.write_text(header, encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    present = set(re.findall(r'^msgid (".*")$', text, flags=re.MULTILINE))
    known = {ast.literal_eval(p) for p in present}
    missing = sorted(all_messages() - known)
    if missing:
        with open(path, "a", encoding="utf-8") as handle:
            for message in missing:
                value = message if language == "en" else ""
                handle.write(f"msgid {_quote(message)}\nmsgstr {_quote(value)}\n\n")
    parse_po(path.read_text(encoding="utf-8"), str(path))
    return missing


if __name__ == "__main__":
    for lang in LANGUAGES:
        print(lang, len(update(lang)), "added")
