"""``zerodrill show``: one card, question side then answer side, as the drill draws it.

The sides are drawn by the drill's own card widget, run in a headless Textual app, so what
is printed is what a learner sees (the card's header, the Markdown, the sources), in the
drill's dark theme, at the terminal's width; plain text when stdout is not a terminal.
``--watch`` draws again whenever a deck file changes, for a contributor editing a card.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zerodrill.cli.common import deck_roots, usable_decks
from zerodrill.deck.control_chars import shown
from zerodrill.deck.files import LoadResult, discover
from zerodrill.deck.model import Deck, Item
from zerodrill.errors import UserError

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

#: Seconds between two looks at the deck files' modification times under ``--watch``.
POLL_SECONDS = 0.3
#: Printed after each drawing under ``--watch``.
WATCHING = "watching the deck files; Ctrl+C to stop"


@click.command()
@click.argument("card_id", metavar="CARD-ID")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--watch", is_flag=True, help="Draw the card again each time a deck file changes.")
def show(card_id: str, paths: tuple[Path, ...], watch: bool) -> None:
    """Print card CARD-ID from PATH... (default: a checkout's decks/, else the bundled decks), both
    sides, as the drill shows it. CARD-ID is the card's id, or DECK/ID; a cloze's DECK/ID#cN shows
    one deletion."""
    from rich.console import Console

    console = Console(highlight=False)
    roots = list(deck_roots(paths).roots)
    if not watch:
        decks = usable_decks(_load(roots))
        _print(console, find_items(decks, card_id), decks)
        return
    try:
        watch_card(console, roots, card_id, wait=lambda: time.sleep(POLL_SECONDS))
    except KeyboardInterrupt:
        return  # Ctrl+C is how watching ends: quietly, exit 0


def watch_card(
    console: Console, roots: Sequence[Path], card_id: str, *, wait: Callable[[], None]
) -> None:
    """Draw the card, then again after each change to a deck file, until interrupted.

    A deck that is invalid (or lacks the card) while being edited is shown as its problems,
    and watching goes on.
    """
    seen: object = None
    while True:
        now = _stamp(roots)
        if now != seen:
            seen = now
            if console.is_terminal:
                console.clear()
            try:
                decks = usable_decks(_load(roots), watching=True)
                _print(console, find_items(decks, card_id), decks)
            except UserError as exc:
                console.print(
                    f"zerodrill: {shown(str(exc))}", markup=False, style="red", soft_wrap=True
                )
            console.print(WATCHING, markup=False, style="dim")
        wait()


def _load(roots: Sequence[Path]) -> LoadResult:
    # Not through the parsed-deck cache: a deck being edited changes on every save.
    from zerodrill.deck.load import load_paths

    return load_paths(roots)


def _stamp(roots: Sequence[Path]) -> object:
    """What changes when a deck file under ``roots`` is saved, added or removed."""
    files, problems = discover(roots)
    stamp: list[object] = [len(problems)]
    for path in files:
        try:
            st = path.stat()
            stamp.append((str(path), st.st_mtime_ns, st.st_size))
        except OSError:
            stamp.append((str(path), None))
    return tuple(stamp)


def find_items(decks: Sequence[Deck], card_id: str) -> list[Item]:
    """The study items of the card ``card_id`` names (ID, DECK/ID, or DECK/ID#cN)."""
    name, _, deletion = card_id.partition("#")
    matches = [card for deck in decks for card in deck.cards if name in (card.id, card.key)]
    if len(matches) > 1:
        both = ", ".join(card.key for card in matches)
        raise UserError(f"card id '{name}' is in more than one deck: name one of {both}")
    if not matches:
        keys = [card.key for deck in decks for card in deck.cards]
        ids = [card.id for deck in decks for card in deck.cards]
        close = difflib.get_close_matches(name, keys if "/" in name else ids, n=3, cutoff=0.6)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise UserError(f"no card '{card_id}' in the decks{hint}")
    items = list(matches[0].items())
    if deletion:
        items = [item for item in items if item.key.endswith(f"#{deletion}")]
        if not items:
            numbers = ", ".join(f"c{n}" for n in matches[0].ordinals) or "none: not a cloze"
            raise UserError(f"card '{name}' has no deletion {deletion} (it has {numbers})")
    return items


def _print(console: Console, items: Sequence[Item], decks: Sequence[Deck] = ()) -> None:
    from rich.rule import Rule

    drawn = draw(items, console.width, decks)
    for item, (question, answer) in zip(items, drawn, strict=True):
        console.print(Rule(f"{item.key}  question", style="dim"))
        console.print(question)
        console.print(Rule(f"{item.key}  answer", style="dim"))
        console.print(answer)


def draw(
    items: Sequence[Item], width: int, decks: Sequence[Deck] = ()
) -> list[tuple[RenderableType, RenderableType]]:
    """Each item's question side and answer side, as the drill's card widget draws them: a
    card of ``decks`` it names by id as its question, its sources in full (as key o unfolds
    them: the one reading them here is the one who wrote them)."""
    from textual.app import App, ComposeResult

    from zerodrill.deck.mentions import CardTitles
    from zerodrill.tui.widgets.card_side import CardSide
    from zerodrill.tui.widgets.card_view import CardView

    drawn: list[tuple[RenderableType, RenderableType]] = []
    titles = {deck.id: CardTitles(deck.cards) for deck in decks}

    class Draw(App[None]):
        def compose(self) -> ComposeResult:
            yield CardView()

        async def on_mount(self) -> None:
            view = self.query_one(CardView)
            for item in items:
                await view.show(item, titles=titles.get(item.card.deck))
                question = view.query_one("#question", CardSide).renderable()
                view.reveal()
                view.toggle_sources()
                drawn.append((question, view.query_one("#answer", CardSide).renderable()))
            self.exit()

    Draw().run(headless=True, size=(width, 50))
    return drawn
