"""``zerodrill schema``: the deck format's JSON Schema, for the editor of a deck repository.

Editors with the YAML language server check and complete a deck as it is typed when the deck's
first line names a schema. zerodrill's own decks name the file inside the package's source;
a repository of one's own decks has no such path, so this writes the schema where the decks
are and says how to name it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from zerodrill.cli.common import write_output
from zerodrill.deck.control_chars import shown
from zerodrill.errors import UserError

#: The name the schema is written under by default, and the one the README's example names.
DEFAULT_NAME = "deck.schema.json"


@click.command()
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help=f"Write the schema to FILE (or DIR/{DEFAULT_NAME}) instead of printing it.",
)
def schema(output: Path | None) -> None:
    """Print (or write) the JSON Schema of a deck file, and say how a deck names it.

    A deck whose first line is  # yaml-language-server: $schema=PATH  is checked and completed
    as it is typed in editors with the YAML language server (VS Code's YAML extension, Neovim,
    Helix...); PATH is relative to the deck file. The schema checks the format; `zerodrill
    validate` checks everything else.
    """
    from zerodrill.deck.json_schema import schema_text

    text = schema_text()
    if output is None:
        click.echo(text, nl=False)
        click.echo(
            f"# name it on a deck's first line: # yaml-language-server: $schema={DEFAULT_NAME} "
            "(the path relative to the deck file)",
            err=True,
        )
        return
    path = output / DEFAULT_NAME if output.is_dir() else output
    if path.is_symlink() or (path.exists() and not _ours(path)):
        raise UserError(
            f"{path} exists and is not a schema zerodrill wrote: left as it is; choose another name"
        )
    write_output(path, text.encode("utf-8"))
    click.echo(f"wrote {shown(str(path))}")
    click.echo(
        f"name it on each deck's first line: # yaml-language-server: $schema={shown(path.name)}"
        " (for a deck in a folder below, the path from there: "
        f"$schema={shown(os.path.join('..', path.name))})"
    )


def _ours(path: Path) -> bool:
    """Whether ``path`` holds a deck schema this command wrote (a later one may replace it)."""
    try:
        with path.open("rb") as f:
            data = f.read(2**20 + 1)
        found = json.loads(data) if len(data) <= 2**20 else None
    except (OSError, ValueError, RecursionError):  # RecursionError: nested too deep to parse
        return False
    from zerodrill.deck.json_schema import TITLE

    return isinstance(found, dict) and found.get("title") == TITLE
