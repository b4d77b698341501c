"""The Anki note types: one per card kind, built from its declaration (``deck/kinds.py``: ID,
name, fields, templates) with the fields and CSS every note type shares.

Rule for everyone who edits a kind or this file: a note type's ID and its FIELD LIST never
change once published. Anki matches an imported note type to the user's copy by ID, and when
the fields (or the number of templates) differ it refuses to update the user's notes and adds a
duplicate note type instead, so every later update of that deck silently stops arriving.
Templates and CSS may change freely: the exporter bumps the note type's modification time when
they do, and Anki then updates the user's copy. If a kind ever needs different fields, declare
a new kind with a NEW model ID (and a new name, e.g. "zerodrill basic v2"); never reuse an ID.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache, lru_cache

import genanki
from msgspec import Struct
from pygments.formatters import HtmlFormatter

from zerodrill.deck.kinds import CardKind
from zerodrill.export.html import CODE_CLASS

#: Fields every note type carries after its kind's own (``CardKind.fields``), in order.
#: ``sources`` holds the card's refs as HTML (links for URLs).
EXTRA_FIELDS: tuple[str, ...] = ("extra", "sources")


def field_names(kind: CardKind) -> tuple[str, ...]:
    """The note type's fields, in order: frozen forever (see the module docstring)."""
    return (*kind.field_names, *EXTRA_FIELDS)


#: MathJax's classes (3.0-3.1 and 3.2 on) for a part of the page it skips, and for a part
#: inside one that it typesets all the same. Every card is the first; the fields of a deck with
#: ``anki_math: true`` are the second (see ``html.py``).
MATH_OFF = "tex2jax_ignore mathjax_ignore"
MATH_ON = "tex2jax_process mathjax_process"

_EXTRA_AND_SOURCES = """\
{{#extra}}<div class="zd-extra">{{extra}}</div>{{/extra}}
{{#sources}}<div class="zd-sources"><div class="zd-label">Sources</div>
{{sources}}</div>{{/sources}}"""

# Each kind's front (``CardKind.anki``) is wrapped in .zd-front and each back in .zd-back, so
# the back can reuse {{FrontSide}} and hide what only belongs on the question (the "try first"
# prompt). Every back ends with the note's extra and sources, and closes the kind's div.
_BACK_TAIL = _EXTRA_AND_SOURCES + "\n</div>"

_BASE_CSS = """\
.card {
  --zd-fg: #1f2328; --zd-muted: #59636e; --zd-bg: #ffffff; --zd-soft: #f6f8fa;
  --zd-rule: #d1d9e0; --zd-link: #0969da; --zd-cloze: #0550ae; --zd-flag: #cf222e;
  --zd-ok: #1a7f37;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue",
    Arial, sans-serif;
  font-size: 20px; line-height: 1.5; text-align: left;
  color: var(--zd-fg); background-color: var(--zd-bg);
  padding: 0 12px;
}
.card.nightMode, .card.night_mode, .nightMode .card, .night_mode .card {
  --zd-fg: #e6edf3; --zd-muted: #9198a1; --zd-bg: #151b23; --zd-soft: #0d1117;
  --zd-rule: #3d444d; --zd-link: #4493f8; --zd-cloze: #79c0ff; --zd-flag: #ff7b72;
  --zd-ok: #3fb950;
}
.zd { max-width: 44em; margin: 0 auto; }
.zd-back { max-width: 44em; margin: 0 auto; }
.zd-back .zd-try { display: none; }
hr#answer { max-width: 44em; margin: 1em auto; border: 0; border-top: 1px solid var(--zd-rule); }
.zd-label { font-size: 0.75em; font-weight: 600; letter-spacing: 0.04em; text-transform: uppercase;
  color: var(--zd-muted); margin: 0.9em 0 0.2em; }
.zd-flag { color: var(--zd-flag); }
.zd-ok { color: var(--zd-ok); }
.zd-try { margin-top: 1em; font-style: italic; color: var(--zd-muted); }
.zd-retired { margin: 0 0 0.8em; padding: 0.3em 0.7em; border-left: 4px solid var(--zd-flag);
  background: var(--zd-soft); font-size: 0.8em; }
.zd-claim { margin: 0.4em 0; padding: 0.2em 0.9em; border-left: 4px solid var(--zd-flag);
  background: var(--zd-soft); }
.zd-extra { margin-top: 1em; padding-top: 0.6em; border-top: 1px dashed var(--zd-rule);
  color: var(--zd-muted); font-size: 0.9em; }
.zd-sources { margin-top: 1em; font-size: 0.8em; color: var(--zd-muted); }
.zd-sources ul { margin: 0.2em 0; padding-left: 1.2em; }
.zd-sources li { overflow-wrap: anywhere; }
.zd a { color: var(--zd-link); }
.zd p { margin: 0.5em 0; }
.zd img { max-width: 100%; height: auto; }
.zd code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono",
  monospace; font-size: 0.88em; background: var(--zd-soft); padding: 0.1em 0.3em;
  border-radius: 4px; }
.zd pre { background: var(--zd-soft); border: 1px solid var(--zd-rule); border-radius: 6px;
  padding: 0.7em 0.9em; overflow-x: auto; line-height: 1.4; }
.zd pre code { background: none; padding: 0; font-size: 0.8em; white-space: pre; }
.zd table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%; }
.zd th, .zd td { border: 1px solid var(--zd-rule); padding: 0.25em 0.6em; }
.zd th { background: var(--zd-soft); }
.zd blockquote { margin-left: 0; }
.cloze { font-weight: 700; color: var(--zd-cloze); }
.cloze-inactive { color: inherit; }
@media (max-width: 600px) {
  .card { font-size: 17px; padding: 0 4px; }
  .zd pre { padding: 0.5em 0.6em; }
}
"""


def _pygments_css() -> str:
    """Token colours: a light style, overridden under Anki's night-mode classes."""
    light = "\n".join(HtmlFormatter(style="default").get_token_style_defs(f".{CODE_CLASS}"))
    dark = "\n".join(
        HtmlFormatter(style="github-dark").get_token_style_defs(
            [f".nightMode .{CODE_CLASS}", f".night_mode .{CODE_CLASS}"]
        )
    )
    # Pygments' per-rule comments only cost bytes in every package.
    return re.sub(r" */\*.*?\*/", "", f"{light}\n{dark}\n")


@lru_cache(maxsize=1)
def css() -> str:
    return _BASE_CSS + _pygments_css()


class NoteType(Struct, frozen=True):
    kind: CardKind
    model: genanki.Model
    #: A digest of everything Anki stores for the note type (fields, templates, CSS): when it
    #: changes, the exporter gives the note type a newer modification time.
    digest: str


def _math_off(template: str) -> str:
    """``template`` with its outer elements (``zd``, ``zd-back``) marked as skipped by MathJax."""
    template = template.replace('class="zd ', f'class="zd {MATH_OFF} ')
    return template.replace('class="zd-back"', f'class="zd-back {MATH_OFF}"')


@cache
def note_type(kind: CardKind) -> NoteType:
    anki = kind.anki
    qfmt, afmt = _math_off(anki.front), _math_off(anki.back + _BACK_TAIL)
    names = field_names(kind)
    model = genanki.Model(
        anki.model_id,
        anki.name,
        fields=[{"name": name} for name in names],
        templates=[{"name": "Cloze" if kind.is_cloze else "Card 1", "qfmt": qfmt, "afmt": afmt}],
        css=css(),
        model_type=genanki.Model.CLOZE if kind.is_cloze else genanki.Model.FRONT_BACK,
        sort_field_index=0,
    )
    payload = json.dumps(
        [model.name, names, model.templates, model.css, model.model_type], sort_keys=True
    )
    return NoteType(kind, model, hashlib.sha256(payload.encode()).hexdigest())
