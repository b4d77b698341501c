"""Textual and genanki are held to what is tested: the installed versions lie within the pins
in pyproject.toml, and every internal name zerodrill overrides or reads is still there, taking
the arguments zerodrill passes it.

Where each is used and why: zerodrill/tui/textual_internals.py and
zerodrill/export/genanki_internals.py. CI runs this file, with the tests that drive those
paths (see .ci/run), on the lowest versions the pins allow as well as on the newest.
"""

from __future__ import annotations

import inspect
import json
import sqlite3
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
#: The dependencies whose internals zerodrill touches, so whose pins must have upper bounds.
PINNED = ("textual", "genanki")


def _requirements() -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return {r.name: r for r in map(Requirement, project["dependencies"])}


@pytest.mark.parametrize("name", PINNED)
def test_the_pin_has_both_bounds_and_holds_the_installed_version(name: str) -> None:
    spec = _requirements()[name].specifier
    assert {s.operator for s in spec} >= {">=", "<"}, f"{name} is pinned {spec}"
    assert spec.contains(Version(version(name))), f"{name} {version(name)} is outside {spec}"


def _parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_textual_internals_overridden_are_there_as_used() -> None:
    from textual.command import CommandPalette
    from textual.message_pump import MessagePump
    from textual.screen import Screen
    from textual.widgets import OptionList

    assert _parameters(Screen._forward_event) == ["self", "event"]
    assert _parameters(Screen._on_resize) == ["self", "event"]
    assert _parameters(MessagePump._on_message) == ["self", "message"]
    assert _parameters(CommandPalette._cancel_gather_commands) == ["self"]
    assert _parameters(CommandPalette._action_command_list) == ["self", "action"]
    # _gather_commands is a worker; the override calls the function inside it.
    inner = CommandPalette._gather_commands.__wrapped__  # type: ignore[attr-defined]
    assert _parameters(inner) == ["self", "search_value"]
    assert isinstance(CommandPalette._GATHER_COMMANDS_GROUP, str)
    assert _parameters(OptionList.action_page_up) == ["self"]
    assert _parameters(OptionList.action_page_down) == ["self"]
    for action in ("page_up", "page_down"):
        # The palette's list pages through this action; the override guards exactly these.
        assert hasattr(OptionList, f"action_{action}")


def test_the_overrides_are_the_ones_textual_calls() -> None:
    # An override Textual no longer calls guards nothing: each name must still be Textual's.
    from textual.command import CommandPalette as TextualPalette
    from textual.screen import Screen

    from zerodrill.tui import textual_internals as ours

    for cls, base, names in (
        (ours.ResizeGuard, Screen, ["_on_resize"]),
        (ours.ClickGuard, Screen, ["_forward_event"]),
        (
            ours.CommandPalette,
            TextualPalette,
            ["dismiss", "_on_message", "_on_resize", "_gather_commands", "_action_command_list"],
        ),
        (ours.PagedOptionList, ours.OptionList, ["action_page_up", "action_page_down"]),
    ):
        for name in names:
            assert name in vars(cls), f"{cls.__name__}.{name}"
            assert hasattr(base, name), f"Textual's {base.__name__} has no {name} any more"


def test_the_genanki_internals_read_as_the_export_expects() -> None:
    from zerodrill.export import genanki_internals as g

    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(g.TABLES)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        assert {"col", "notes", "cards", "revlog", "graves"} <= tables
        assert "CREATE INDEX" not in g.TABLES and g.INDEXES.lstrip().startswith("CREATE INDEX")
        conn.executescript(g.COLLECTION_ROW)
        (ver,) = conn.execute("SELECT ver FROM col").fetchone()
        assert ver == 11  # the schema zerodrill/export/collection.py writes
        conn.executescript(g.INDEXES)
    finally:
        conn.close()
    conf = json.loads(g.DEFAULT_CONF)
    assert isinstance(conf, dict) and "curDeck" in conf
