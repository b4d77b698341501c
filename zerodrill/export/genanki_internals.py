"""genanki's internals the export reads: its collection schema and its collection row.

The export writes the collection itself (pinned bytes, update in place; see
:mod:`zerodrill.export.collection`) but in genanki's schema 11, taken from genanki so that the
two agree. ``genanki.apkg_schema.APKG_SCHEMA`` and ``genanki.apkg_col.APKG_COL`` are not
genanki's documented API, and are split and searched here as text: genanki is pinned in
pyproject.toml, and tests/test_pinned_internals.py checks that they still read as this module
expects (CI runs it on the lowest genanki the pin allows too). No upstream issue asks for them
to be public.
"""

from __future__ import annotations

import re

from genanki.apkg_col import APKG_COL
from genanki.apkg_schema import APKG_SCHEMA

#: The statements that make the tables, and those that make the indexes (run after the rows:
#: one sort per index instead of a B-tree insert per row).
TABLES = APKG_SCHEMA[: APKG_SCHEMA.index("CREATE INDEX")]
INDEXES = APKG_SCHEMA[APKG_SCHEMA.index("CREATE INDEX") :]
#: The INSERT of the collection's one ``col`` row.
COLLECTION_ROW: str = APKG_COL
#: genanki's default collection config (JSON), from that INSERT.
DEFAULT_CONF: str = re.findall(r"'(\{.*?\})'", APKG_COL, re.DOTALL)[0]
