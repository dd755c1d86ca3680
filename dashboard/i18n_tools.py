"""Keeping the catalogs whole: extract every msgid from the templates, the pages' JavaScript
and the dashboard's Python, and merge them into ``translations/<lang>/…/messages.po``.

    python -m dashboard.i18n_tools update   # add new msgids (English filled in, Chinese empty)
    python -m dashboard.i18n_tools check    # exit 1 naming each msgid missing or untranslated

The tests run ``check``'s logic, so a string added without its translations fails the suite.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from dashboard.i18n import LANGS, SOURCE

ROOT = Path(__file__).resolve().parent
METHODS = [
    ("templates/**.html", "jinja2.ext:babel_extract"),
    ("static/**.js", "dashboard.i18n_tools:extract_js"),
    ("**.py", "python"),
]
KEYWORDS = {"_": None, "gettext": None, "_l": None}
OPTIONS = {"templates/**.html": {"extensions": "jinja2.ext.i18n"}}


#: ``t("…")`` / ``tHTML("…")`` in the pages' scripts (cards.js): the msgid is a plain literal.
JS_CALL = re.compile(r'(?<![\w.$])(t|tHTML)\(\s*"((?:[^"\\\n]|\\.)*)"')


def extract_js(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extraction method for the pages' JavaScript (Babel's own lexer loses calls
    nested in template literals)."""
    text = fileobj.read().decode("utf-8")
    for m in JS_CALL.finditer(text):
        lineno = text.count("\n", 0, m.start()) + 1
        yield lineno, "_", json.loads(f'"{m.group(2)}"'), []


def extract() -> Catalog:
    """Every msgid the dashboard uses, with where it is used."""
    template = Catalog(project="tablescan", charset="utf-8")
    for path, lineno, message, comments, _ctx in extract_from_dir(
        ROOT, METHODS, OPTIONS, KEYWORDS, comment_tags=("i18n:",)
    ):
        if isinstance(message, tuple):  # ngettext forms are not used here
            message = message[0]
        if not message:
            continue
        template.add(message, None, [(f"dashboard/{path}", lineno)], auto_comments=comments)
    return template


def po_path(lang: str) -> Path:
    return SOURCE / lang / "LC_MESSAGES" / "messages.po"


def load(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, project="tablescan", charset="utf-8")
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def dump(catalog: Catalog) -> bytes:
    buf = BytesIO()
    write_po(buf, catalog, width=100, sort_output=True, omit_header=False)
    return buf.getvalue()


def update() -> None:
    template = extract()
    for lang in LANGS:
        catalog = load(lang)
        catalog.update(template, no_fuzzy_matching=True)
        for message in catalog:
            if not message.id:
                continue
            message.flags.discard("fuzzy")
            if lang == "en" and not message.string:
                message.string = message.id
        catalog.obsolete.clear()
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(dump(catalog))


def problems() -> list[str]:
    """Each msgid used but missing from a catalog, or left untranslated there."""
    used = {m.id for m in extract() if m.id}
    out = []
    for lang in LANGS:
        catalog = load(lang)
        have = {m.id: m.string for m in catalog if m.id}
        for mid in sorted(used, key=str):
            if mid not in have:
                out.append(f"{lang}: {mid!r} is not in {po_path(lang).relative_to(ROOT.parent)}")
            elif not have[mid]:
                out.append(f"{lang}: {mid!r} has no translation")
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update()
        return 0
    if argv[:1] == ["check"]:
        found = problems()
        for line in found:
            print(line)
        return 1 if found else 0
    print("usage: python -m dashboard.i18n_tools update|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
