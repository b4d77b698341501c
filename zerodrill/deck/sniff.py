"""Telling a deck file from other YAML, for the pre-commit hook in a repository that holds both
(``.pre-commit-config.yaml`` itself, CI workflows, a site's config).

A file is taken for a deck when its top level names ``deck`` or ``cards``, or a near miss of
either (``dek:``, ``card:``): a deck with a typo in those keys is still checked, and its typo
reported, rather than skipped in silence.
"""

from __future__ import annotations

import difflib
import re

import yaml

_DECK_KEYS = ("deck", "cards")
_CLOSE = 0.75
#: For a file YAML cannot read: a deck's keys at the start of a line.
_KEY_LINE = re.compile(rb"^(?:deck|cards)\s*:", re.MULTILINE)


def looks_like_deck(data: bytes) -> bool:
    """Whether ``data`` is meant as a deck (see the module's docstring)."""
    try:
        keys = _top_level_keys(data)
    except yaml.YAMLError:
        # Broken YAML: a deck's own keys at a line's start say it is one being written.
        return bool(_KEY_LINE.search(data))
    return any(difflib.get_close_matches(k, _DECK_KEYS, n=1, cutoff=_CLOSE) for k in keys)


def _top_level_keys(data: bytes) -> list[str]:
    # Composed, not constructed: nothing is built, so aliases and tags cost nothing here.
    node = yaml.compose(data, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.MappingNode):
        return []
    return [k.value.strip().casefold() for k, _ in node.value if isinstance(k, yaml.ScalarNode)]
