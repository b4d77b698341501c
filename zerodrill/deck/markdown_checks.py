"""Where a deck's Markdown puts its images and links, as the export's parser reads them.

The loader checks each image is a file in the deck's folder and each link is one the export
keeps; both ask this module, which parses with the deck's one Markdown configuration
(:mod:`~zerodrill.deck.markdown_syntax`), so the targets checked are the targets rendered.
How Anki reads cloze markers in that Markdown is Anki's rule, beside the Anki exporter
(:mod:`zerodrill.export.anki_cloze`).
"""

from __future__ import annotations

from zerodrill.deck import markdown_syntax


def event_name(event: object) -> tuple[str, object, str | None]:
    """An event's element name, its attributes and whether it starts or ends an element."""
    if isinstance(event, str):
        return event, None, None
    assert isinstance(event, dict)
    ((key, value),) = event.items()
    if key not in ("Start", "End"):
        return key, value, None
    if isinstance(value, str):
        return value, None, key
    ((name, payload),) = value.items()
    return name, payload, key


def images(text: str) -> list[tuple[int, str]]:
    """(offset, path) of each image in ``text``, as the export's parser reads them: inline
    (``![alt](path "title")``, also with brackets in the alt text or parentheses in the path)
    and by reference (``![alt][ref]``, ``![ref]`` with ``[ref]: path`` below); none in code."""
    return _targets(text, "Image", "![")


def links(text: str) -> list[tuple[int, str]]:
    """(offset, target) of each link in ``text`` (inline, by reference and autolinks), as the
    export's parser reads them; none in code."""
    return _targets(text, "Link", "")


def _targets(text: str, kind: str, marker: str) -> list[tuple[int, str]]:
    if marker not in text:
        return []
    data = text.encode()
    found: list[tuple[int, str]] = []
    byte = offset = 0  # the last one's place, counted on from there: linear in the text
    for event, span in markdown_syntax.parser().events_with_range(text):
        name, target, edge = event_name(event)
        if edge == "Start" and name == kind and isinstance(target, dict):
            offset += len(data[byte : span["start"]].decode())
            byte = span["start"]
            found.append((offset, str(target.get("dest_url", ""))))
    return found
