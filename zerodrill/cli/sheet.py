"""``zerodrill sheet``: the night-before cheat sheet, in the terminal, as Markdown or as HTML."""

from __future__ import annotations

from pathlib import Path

import click

from zerodrill.cli.common import load_decks, usable_decks, write_output
from zerodrill.deck.control_chars import shown
from zerodrill.deck.model import Deck
from zerodrill.errors import UserError

_FORMATS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


@click.command()
@click.option("--deck", "deck_id", metavar="ID", help="The sheet of the deck with this id only.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    metavar="FILE.md|FILE.html",
    help="Write Markdown (.md) or one self-contained HTML page (.html) instead of printing.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def sheet(paths: tuple[Path, ...], deck_id: str | None, output: Path | None) -> None:
    """Show the night-before cheat sheet of the decks in PATH... (default: a checkout's decks/, else
    the bundled decks).

    With -o FILE.html the sheet is one page with no external files, in light or dark as the
    reader's system is, that prints on A4.
    """
    kind = None
    if output is not None:
        kind = _FORMATS.get(output.suffix.lower())
        if kind is None:
            raise click.UsageError(
                f"-o {shown(str(output))}: the sheet is written as FILE.md or FILE.html"
            )
    decks = _with_sheets(usable_decks(load_decks(paths)), deck_id)
    # Imported once the decks are known good: a mistake costs no rendering imports.
    from zerodrill.export import cheat_sheet as rendered

    if kind is None:
        _print(decks)
        return
    text = rendered.page(decks) if kind == "html" else rendered.markdown(decks)
    assert output is not None
    write_output(output, text.encode("utf-8"))
    click.echo(f"wrote {shown(str(output))}")


def _with_sheets(decks: tuple[Deck, ...], deck_id: str | None) -> list[Deck]:
    if deck_id is not None:
        chosen = [d for d in decks if d.id == deck_id]
        if not chosen:
            known = ", ".join(sorted(d.id for d in decks))
            raise UserError(f"no deck with id '{deck_id}' (decks: {known})")
        if chosen[0].sheet is None:
            raise UserError(
                f"deck '{deck_id}' has no sheet: add a 'sheet:' list of bullets to "
                f"{chosen[0].path} (decks/README.md shows how)"
            )
        return chosen
    with_sheets = [d for d in decks if d.sheet is not None]
    if not with_sheets:
        names = ", ".join(sorted(d.id for d in decks))
        raise UserError(
            f"no sheet in the decks ({names}): add a 'sheet:' list of bullets to a deck "
            "(decks/README.md shows how)"
        )
    return with_sheets


def _print(decks: list[Deck]) -> None:
    from rich.console import Console, Group, RenderableType
    from rich.style import Style
    from rich.table import Table
    from rich.text import Text

    from zerodrill.export.cheat_sheet import HEADING
    from zerodrill.tui.markdown import MarkdownStyles, parse_markdown, render

    console = Console(highlight=False)
    styles = MarkdownStyles(code=Style(bold=True, color="cyan"))
    shown: list[RenderableType] = []
    for deck in decks:
        assert deck.sheet is not None
        grid = Table.grid(padding=(0, 1, 1, 0))
        grid.add_column(justify="right", style="cyan")
        grid.add_column()
        for n, bullet in enumerate(deck.sheet.bullets, 1):
            item: RenderableType = render(parse_markdown(bullet.text), styles)
            if bullet.cards:
                item = Group(item, Text(f"cards: {', '.join(bullet.cards)}", style="dim"))
            grid.add_row(f"{n}.", item)
        shown += [Text(f"{HEADING}: {deck.title}", style="bold"), Text(), grid]
    if console.is_terminal:
        for renderable in shown:
            console.print(renderable)
        return
    # Rich pads a table's every line to the console's width (80 columns when piped): a file
    # or a pipe gets the lines as they end.
    with console.capture() as captured:
        for renderable in shown:
            console.print(renderable)
    click.echo("\n".join(line.rstrip() for line in captured.get().splitlines()))
