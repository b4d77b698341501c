"""Shared pieces of the drill's tests: a fixed clock, the test decks, an app over a temp store."""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.content import Content
from textual.strip import Strip
from textual.widget import Widget

from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.widgets.card_side import CardSide, DrawnOnce
from zerodrill.tui.widgets.key_bar import DrawnLine

TUI_DECKS = Path(__file__).resolve().parent / "data" / "tui"
#: Monday 11 May 2026, 10:00 local time: mid-morning of a study day, far from the rollover.
START = datetime(2026, 5, 11, 10, 0).astimezone()


class Clock:
    """A clock that moves only when told, so snapshots and answer times are exact."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


def tui_decks(*names: str) -> tuple[Deck, ...]:
    paths = [TUI_DECKS / f"{n}.yaml" for n in names] if names else [TUI_DECKS]
    result = load_paths(paths)
    assert result.ok, result.problems
    return result.decks


def make_app(
    store: Store,
    *names: str,
    clock: Clock | None = None,
    new_limit: int = 20,
    deck_id: str | None = None,
) -> ZeroDrillApp:
    return create_app(
        tui_decks(*names), store, clock=clock or Clock(), new_limit=new_limit, deck_id=deck_id
    )


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test without a pytest async plugin (the project has none)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


def next_frame(widget: Widget) -> list[Strip]:
    """The lines ``widget`` draws in its next frame, not those of the last frame it kept."""
    widget.refresh()
    return widget.render_lines(widget.region.reset_offset)


def shown(widget: Widget) -> str:
    """The text ``widget`` draws at its current width, as the learner reads it."""
    # A card side gives Textual a Visual of its own; its Rich renderable is what it draws.
    rendered = widget.renderable() if isinstance(widget, CardSide) else widget.render()
    if isinstance(rendered, DrawnLine):
        rendered = rendered.content
    if isinstance(rendered, DrawnOnce):
        rendered = rendered.renderable
    if isinstance(rendered, Content):
        return rendered.plain
    width = widget.content_size.width or 80
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    console.print(rendered)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


async def palette_command(app: ZeroDrillApp, pilot: Any, search: str, title: str) -> None:
    """Ctrl+P, type ``search``, Enter: once the palette's search has found the one command,
    whose title holds ``title``."""
    from textual.command import CommandList

    await pilot.press("ctrl+p")
    await pilot.press(*search)
    for _ in range(100):  # the search runs in a worker: on a busy machine it takes a while
        await pilot.pause(0.05)
        found = app.screen.query_one(CommandList)
        if found.option_count == 1:
            break
    assert title in str(found.get_option_at_index(0).prompt)
    await pilot.press("enter")
    await pilot.pause()
