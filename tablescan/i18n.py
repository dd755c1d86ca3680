"""The CLI's languages: Chinese (zh_CN) first, English one switch away.

The human-readable output of ``tablescan judge``, ``profiles`` and ``verify`` goes through
gettext catalogs (``tablescan/translations/<lang>/LC_MESSAGES/tablescan.po``), compiled in
memory when first used, so a checkout needs no build step. ``--json`` output is never
translated (it is the machine contract). Rule and card names come from ``engine.names``, the
table the dashboard uses too.

Which language: ``--lang en|zh``, else ``TABLESCAN_LANG``, else ``LANG``/``LC_ALL`` when it
names Chinese or English, else zh_CN.

    python -m tablescan.i18n update   # add new msgids (English filled in, Chinese empty)
    python -m tablescan.i18n check    # exit 1 naming each msgid missing or untranslated
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from engine import names

if TYPE_CHECKING:
    from dashboard.i18n_tools import Catalogs

LANGS = ("zh_CN", "en")
DEFAULT = "zh_CN"
DOMAIN = "tablescan"
SOURCE = Path(__file__).with_name("translations")
ROOT = Path(__file__).resolve().parent
#: the modules whose text output is translated (their ``_("…")`` calls are the msgids)
SHOWN = (
    "i18n.py",
    "commands/judge.py",
    "commands/profiles.py",
    "commands/verify.py",
    "commands/demo.py",
    "demo/view.py",
    "demo/pipeline.py",
    "commands/tournament.py",
    "envelope.py",
    "commands/markers.py",
)

_current: list[str] = [DEFAULT]


def normal(code: str | None) -> str | None:
    """``zh``, ``zh_CN.UTF-8``, ``zh-Hans`` → zh_CN; ``en_US.UTF-8`` → en; others None."""
    if not code:
        return None
    low = code.split(".")[0].replace("-", "_").lower()
    if low.startswith("zh"):
        return "zh_CN"
    if low == "en" or low.startswith("en_"):
        return "en"
    return None


def choose(flag: str | None, env: Mapping[str, str] | None = None) -> str:
    """The output language from ``--lang``, then the environment, then zh_CN."""
    env = os.environ if env is None else env
    for code in (flag, env.get("TABLESCAN_LANG"), env.get("LC_ALL"), env.get("LANG")):
        found = normal(code)
        if found:
            return found
    return DEFAULT


def add_lang_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lang",
        choices=["zh", "en", "zh_CN"],
        help="language of the text output (default: TABLESCAN_LANG, LANG, else zh)",
    )


def use(lang: str) -> str:
    """Make ``lang`` the language ``_()`` answers in; returns it as one of LANGS."""
    _current[0] = normal(lang) or DEFAULT
    return _current[0]


def lang() -> str:
    return _current[0]


@cache
def translations(lang: str) -> Translations:
    with po_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def _(msgid: str, **kw: object) -> str:
    """``msgid`` in the current language, ``{name}`` placeholders filled from ``kw``."""
    text = translations(lang()).gettext(msgid)
    return text.format(**kw) if kw else text


def card(code: str) -> str:
    return names.card_name(code, lang())


def cards(codes: list[str] | None) -> str:
    """Cards for a line: 红桃K、红桃K in Chinese; the compact notation (``KH KH``) in English,
    which is how the record and the English sheets write them."""
    if lang() == "en":
        return " ".join(codes) if codes else "-"
    return names.cards_text(codes, lang())


def rule(rule_id: object) -> str:
    return names.rule_name(str(rule_id), lang())


def suit(code: str | None) -> str:
    return names.suit_name(code, lang())


# -- keeping the catalogs whole ------------------------------------------------------------


def po_path(lang: str) -> Path:
    return SOURCE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every msgid the CLI's text output uses, with where it is used."""
    template = Catalog(project="tablescan", charset="utf-8")
    for rel in SHOWN:
        for lineno, message, _c, _ctx in extract_from_file(
            "python", ROOT / rel, keywords={"_": None}
        ):
            if isinstance(message, str) and message:
                template.add(message, None, [(f"tablescan/{rel}", lineno)])
    return template


def catalogs() -> Catalogs:
    """The CLI's catalogs, kept by the dashboard's catalog tool (imported only when asked:
    the commands' start-up does not load Flask)."""
    from dashboard.i18n_tools import Catalogs

    return Catalogs(extract, po_path, LANGS, "python -m tablescan.i18n")


def load(lang: str) -> Catalog:
    return catalogs().load(lang)


def update() -> None:
    catalogs().update()


def problems() -> list[str]:
    return catalogs().problems()


if __name__ == "__main__":
    raise SystemExit(catalogs().main(sys.argv[1:], ok="catalogs complete"))
