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
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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


#: One entry's key in a ``.po`` file: its msgctxt and msgid lines, as written.
ENTRY = re.compile(r'^((?:msgctxt ".*"\n(?:".*"\n)*)?msgid ".*"\n(?:".*"\n)*)', re.M)

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


@dataclass(frozen=True)
class Catalogs:
    """One set of gettext catalogs kept whole: its msgids extracted from the sources, merged
    into each language's ``.po`` (English filled in, others left to translate) and checked.
    The dashboard's and the CLI's (``tablescan.i18n``) catalogs are two of these."""

    extract: Callable[[], Catalog]
    po_path: Callable[[str], Path]
    langs: tuple[str, ...]
    prog: str  #: how ``main``'s usage line names the command

    def load(self, lang: str) -> Catalog:
        path = self.po_path(lang)
        if not path.exists():
            return Catalog(locale=lang, project="tablescan", charset="utf-8")
        with path.open("rb") as f:
            return read_po(f, locale=lang)

    def update(self) -> None:
        template = self.extract()
        for lang in self.langs:
            catalog = self.load(lang)
            catalog.update(template, no_fuzzy_matching=True)
            for message in catalog:
                if not message.id:
                    continue
                message.flags.discard("fuzzy")
                if lang == "en" and not message.string:
                    message.string = message.id
            catalog.obsolete.clear()
            buf = BytesIO()
            write_po(buf, catalog, width=100, sort_output=True, omit_header=False)
            path = self.po_path(lang)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(buf.getvalue())

    def problems(self) -> list[str]:
        """Each msgid used but missing from a catalog, left untranslated there, or written
        twice (``.po`` files merge as a union, and ``read_po`` silently keeps one of two
        entries: the page would show whichever translation it kept)."""
        used = sorted({str(m.id) for m in self.extract() if m.id})
        out = []
        for lang in self.langs:
            have = {m.id: m.string for m in self.load(lang) if m.id}
            where = self.po_path(lang).relative_to(ROOT.parent)
            if self.po_path(lang).exists():
                text = self.po_path(lang).read_text(encoding="utf-8")
                seen = Counter(ENTRY.findall(text))
                out += [
                    f"{lang}: {k!r} is written {n} times in {where}"
                    for k, n in seen.items()
                    if n > 1
                ]
            for mid in used:
                if mid not in have:
                    out.append(f"{lang}: {mid!r} is not in {where}")
                elif not have[mid]:
                    out.append(f"{lang}: {mid!r} has no translation")
        return out

    def main(self, argv: list[str], ok: str = "") -> int:
        """``update`` or ``check`` (exit 1 naming each problem; ``ok`` printed when none)."""
        if argv[:1] == ["update"]:
            self.update()
            return 0
        if argv[:1] == ["check"]:
            found = self.problems()
            for line in found or ([ok] if ok else []):
                print(line)
            return 1 if found else 0
        print(f"usage: {self.prog} update|check", file=sys.stderr)
        return 2


DASHBOARD = Catalogs(extract, po_path, tuple(LANGS), "python -m dashboard.i18n_tools")
load, update, problems = DASHBOARD.load, DASHBOARD.update, DASHBOARD.problems


if __name__ == "__main__":
    sys.exit(DASHBOARD.main(sys.argv[1:]))
