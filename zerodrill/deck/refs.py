"""What a ref must say in a deck that declares ``refs: required``: the place a reader checks.

The rules, by the kind of ref (:func:`kind`), are decks/README.md's, under "Rules that keep
learners' history safe". Refs of a deck without ``refs: required`` are not checked: there, a
ref is a pointer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum
from urllib.parse import unquote, urlsplit


class RefKind(Enum):
    #: A file (or folder) on a forge, at some commit, tag or branch.
    CODE = "code"
    #: A pull request, merge request, issue or discussion.
    THREAD = "thread"
    #: A paper: an arXiv id written out, or an arXiv link.
    PAPER = "paper"
    #: Any other web address.
    PAGE = "page"
    #: Anything else: a book, a talk, a path.
    TEXT = "text"


_HTTP = ("http://", "https://")
#: A commit in full: SHA-1, or SHA-256 in a repository that uses it.
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SHORT_COMMIT = re.compile(r"[0-9a-f]{7,39}")
#: A release tag: v1.2, 1.2.3, v4.57.1, v2.0.0-rc1.
_VERSION = re.compile(r"v?[0-9]+(?:\.[0-9]+)+(?:[-+][0-9A-Za-z.]+)?")
#: Line anchors: GitHub, Gitea and Forgejo (L10, L10-L20, L10C2-L12C5), GitLab (L10-20),
#: Bitbucket (lines-10, lines-10:20).
_LINES = re.compile(r"L[0-9]+(?:C[0-9]+)?(?:-L?[0-9]+(?:C[0-9]+)?)?|lines-[0-9]+(?::[0-9]+)?")
_THREADS = frozenset({"pull", "pulls", "issues", "merge_requests", "pull-requests", "discussions"})
_ARXIV_ID = re.compile(r"\barXiv:\s?[0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?", re.IGNORECASE)
_ARXIV_HOSTS = frozenset({"arxiv.org", "www.arxiv.org", "export.arxiv.org"})
#: Where in a paper: §5.2, Section 3, Table 1, Figure 2, Fig. 2, Appendix A, Algorithm 1,
#: Eq. (3), the abstract.
_PAPER_PLACE = re.compile(
    r"§\s?[0-9]|\b(?:Section|Sec\.|Table|Figure|Fig\.|Algorithm|Eq\.|Equation)\s?\(?[0-9]"
    r"|\bAppendix\s?[A-Z0-9]|\babstract\b",
    re.IGNORECASE,
)
#: How a pinned code ref is written, for messages.
CODE_FORM = "https://github.com/OWNER/REPO/blob/<40-hex commit>/path.py#L10-L20"
PAPER_FORM = "NAME, arXiv:ID, §N (or Table N, Figure N, abstract)"


class _Code:
    """A code link's parts: its view ('blob', 'tree', 'src'), its commit or branch, the path."""

    def __init__(self, view: str, ref: str, path: Sequence[str], fragment: str) -> None:
        self.view = view
        self.ref = ref
        self.path = path
        self.fragment = fragment


def _code(host: str, parts: list[str], fragment: str) -> _Code | None:
    """The parts of a link to code on a forge, read from its shape; None for other links."""
    for i, part in enumerate(parts):
        # GitLab, at any depth of groups: GROUP/SUBGROUP/REPO/-/blob/REF/path
        if part == "-" and i >= 2 and i + 2 < len(parts) and parts[i + 1] in ("blob", "tree"):
            return _Code(parts[i + 1], parts[i + 2], parts[i + 3 :], fragment)
    if len(parts) < 4:
        return None
    view = parts[2]
    if view in ("blob", "tree"):  # GitHub, Gitea, sourcehut: OWNER/REPO/blob/REF/path
        return _Code(view, parts[3], parts[4:], fragment)
    if view == "src":
        if parts[3] in ("commit", "branch", "tag") and len(parts) >= 5:  # Gitea, Forgejo
            return _Code(view, parts[4], parts[5:], fragment)
        if host == "bitbucket.org":
            return _Code(view, parts[3], parts[4:], fragment)
    return None


def _split(ref: str) -> tuple[str, list[str], str] | None:
    if not ref[:8].lower().startswith(_HTTP):
        return None
    try:
        url = urlsplit(ref)
        host = (url.hostname or "").lower()
    except ValueError:  # a bad port, an unclosed IPv6 bracket
        return None
    return host, [unquote(p) for p in url.path.split("/") if p], url.fragment


def kind(ref: str) -> RefKind:
    ref = ref.strip()
    split = _split(ref)
    if split is None:
        return RefKind.PAPER if _ARXIV_ID.search(ref) else RefKind.TEXT
    host, parts, fragment = split
    if host in _ARXIV_HOSTS:
        return RefKind.PAPER
    if _code(host, parts, fragment) is not None:
        return RefKind.CODE
    if any(
        part in _THREADS and i >= 2 and i + 1 < len(parts) and parts[i + 1].isdigit()
        for i, part in enumerate(parts)
    ):
        return RefKind.THREAD
    return RefKind.PAGE


def problem(ref: str) -> str | None:
    """What keeps ``ref`` from naming its place, in a deck with ``refs: required``; None if
    nothing does."""
    ref = ref.strip()
    split = _split(ref)
    if split is None:
        if _ARXIV_ID.search(ref) and not _PAPER_PLACE.search(ref):
            return (
                "this ref cites a paper but not where in it: add the section, table or figure, "
                f"as in '{PAPER_FORM}' (the deck says 'refs: required')"
            )
        return None
    host, parts, fragment = split
    if host in _ARXIV_HOSTS:
        return (
            f"a link to a whole paper names no place in it: cite it as '{PAPER_FORM}' "
            "(the deck says 'refs: required')"
        )
    code = _code(host, parts, fragment)
    if code is None:
        return None
    wrong: list[str] = []
    if code.view == "tree" and not code.path:
        wrong.append("it links a whole repository at a commit or branch, not a file")
    elif code.view == "tree":
        wrong.append("it links a folder, not a file")
    if _COMMIT.fullmatch(code.ref) or _VERSION.fullmatch(code.ref):
        pass
    elif _SHORT_COMMIT.fullmatch(code.ref):
        wrong.append(
            f"'{code.ref}' is a shortened commit, which a later commit can make ambiguous: "
            "give all 40 hex digits"
        )
    else:
        wrong.append(
            f"'{code.ref}' is a branch or other name that moves, so the lines it shows change: "
            "pin it to a commit (all 40 hex digits) or a version tag (v1.2.3)"
        )
    if code.view != "tree":
        if not fragment:
            wrong.append("it names no lines: add them as '#L10' or '#L10-L20'")
        elif not _LINES.fullmatch(fragment):
            wrong.append(f"'#{fragment}' is not a line anchor: write '#L10' or '#L10-L20'")
    if not wrong:
        return None
    return (
        f"a code ref links lines at a fixed commit (the deck says 'refs: required'): "
        f"{'; '.join(wrong)}; write it as {CODE_FORM}"
    )


def only_threads(refs: Sequence[str]) -> bool:
    """Whether every one of ``refs`` (at least one) is a pull request or an issue."""
    return bool(refs) and all(kind(ref) is RefKind.THREAD for ref in refs)
