"""Every text of the source that a catalog must translate, and the template that lists them.

``python -m trickroom.i18n.extract`` rewrites ``locale/messages.pot`` from the source
(Babel's Python extractor, reading the calls of :class:`Msg` and :class:`PluralMsg`), and
merges it into every language's ``.po`` (new keys come in empty, for a translator to
fill; the completeness test fails until they are).
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from trickroom.i18n.catalogs import DOMAIN, LOCALE_DIR

PACKAGE = Path(__file__).resolve().parent.parent  # trickroom/
KEYWORDS = {"Msg": None, "PluralMsg": (1, 2)}
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"


def source_catalog() -> Catalog:
    """Every Msg and PluralMsg template written in trickroom's Python source."""
    catalog = Catalog(project="trickroom", domain=DOMAIN)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(PACKAGE), method_map=[("web/**", "ignore"),
                                      ("**.py", "python")],
            keywords=KEYWORDS, comment_tags=("i18n:",), strip_comment_tags=True):
        catalog.add(message, None, [(f"trickroom/{filename}", lineno)],
                    auto_comments=comments, context=context, flags=("python-brace-format",))
    return catalog


def main() -> None:
    catalog = source_catalog()
    with TEMPLATE.open("wb") as out:
        write_po(out, catalog, width=96, sort_output=True, include_lineno=False)
    for po_path in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with po_path.open("rb") as po:
            translated = read_po(po)
        translated.update(catalog, no_fuzzy_matching=True)
        with po_path.open("wb") as out:
            write_po(out, translated, width=96, sort_output=True, ignore_obsolete=True,
                     include_lineno=False)
    print(f"{len(catalog)} texts; wrote {TEMPLATE}", file=sys.stderr)


if __name__ == "__main__":
    main()
