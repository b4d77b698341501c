"""A card's sources as short labels, each with the web address it opens (if any).

A ref is untrusted text from a deck. Only an ``http(s)`` ref becomes a link, to exactly that
address; a paper cited by its arXiv id links to that id's page on arxiv.org. Everything else
is shown as the text it is. The labels are short so that each fits on one line at 80
columns: a URL folded across lines is both hard to read and, in most terminals, no longer
one link. Anki shows the same labels (``zerodrill.export.notes``), where a raw URL would take
a third of a phone's screen; so this lives beside the deck, not in the terminal's code.
Under an answer the drill folds them into one line of the places they name
(:attr:`Source.place`), each once (:func:`sources`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from msgspec import Struct

_HTTP = ("http://", "https://")
_LINES = re.compile(r"L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?")
_COMMIT = re.compile(r"[0-9a-f]{40}")
#: "ZeRO paper, arXiv:1910.02054v3, §7.2" -> name, id, what of it.
_ARXIV = re.compile(
    r"(?P<name>[^,]+),\s*arXiv:(?P<id>\d{4}\.\d{4,5}(?:v\d+)?)(?:,\s*(?P<rest>.+))?"
)
#: The longest part of a path a label keeps whole.
_PART = 40
_GITHUB_KINDS = {"pull": "PR", "issues": "issue", "discussions": "discussion"}


class Source(Struct, frozen=True):
    label: str
    #: Where the label links to; None for a ref that is not a web address.
    url: str | None
    #: The version of the place the label names after its ``@`` (a GitHub file's commit or
    #: tag), or "" if it names none.
    at: str = ""

    @property
    def place(self) -> str:
        """The label without its version: the one line of sources under an answer names the
        places, which the full list tells apart by version."""
        return self.label.removesuffix(f" @{self.at}") if self.at else self.label


def sources(refs: Iterable[str]) -> list[Source]:
    """The sources of ``refs``, in order, each once: a deck may cite one place twice."""
    return list(dict.fromkeys(source(ref) for ref in refs))


@lru_cache(maxsize=4096)
def source(ref: str) -> Source:
    """``ref`` (as written in a deck's ``refs``) as a short label and its link."""
    ref = ref.strip()
    if ref[:8].lower().startswith(_HTTP):
        label, at = _url_label(ref)
        return Source(label, ref, at)
    paper = _ARXIV.fullmatch(ref)
    if paper is not None:
        label = " ".join(filter(None, (paper["name"].strip(), paper["rest"])))
        return Source(label, f"https://arxiv.org/abs/{paper['id']}")
    return Source(ref, None)


def _url_label(url: str) -> tuple[str, str]:
    """The label of a web address, and the version it names (see :attr:`Source.at`)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").removeprefix("www.")
    except ValueError:  # a malformed address (a bad port, an unclosed IPv6 bracket)
        return url, ""
    path = [unquote(p) for p in parts.path.split("/") if p]
    if host == "github.com" and len(path) >= 4:
        found = _github_label(path, parts.fragment)
        if found is not None:
            return found
    if host == "arxiv.org" and len(path) >= 2 and path[0] in ("abs", "pdf"):
        return f"arXiv {path[1].removesuffix('.pdf')}", ""
    return " ".join(filter(None, (host, "/".join(_short(p) for p in path[-2:])))), ""


def _short(part: str) -> str:
    # A query-like path part can be hundreds of characters: the label only has to be told apart.
    return part if len(part) <= _PART else part[: _PART - 1] + "…"


def _github_label(path: list[str], fragment: str) -> tuple[str, str] | None:
    owner, repo, kind, *rest = path
    del owner  # the repository's name says enough; its owner is in the link
    if kind in ("blob", "tree") and rest:
        ref, *file = rest
        at = ref[:7] if _COMMIT.fullmatch(ref) else ref
        lines = fragment if _LINES.fullmatch(fragment) else ""
        return " ".join(filter(None, (repo, "/".join(file[-2:]), lines, f"@{at}"))), at
    if kind in _GITHUB_KINDS and rest:
        return f"{repo} {_GITHUB_KINDS[kind]} #{rest[0]}", ""
    if kind == "commit" and rest:
        return f"{repo} commit {rest[0][:7]}", ""
    return None
