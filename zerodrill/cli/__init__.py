"""The ``zerodrill`` command line.

Subcommands live in their own modules and are imported only when run, so ``validate`` and
``export`` never pay for importing Textual.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from zerodrill import __version__
from zerodrill.deck.control_chars import shown
from zerodrill.errors import UserError

#: name -> "module:attribute" of each subcommand.
COMMANDS: dict[str, str] = {
    "anki": "zerodrill.cli.anki:anki",
    "drill": "zerodrill.cli.drill:drill",
    "export": "zerodrill.cli.export:export",
    "import-progress": "zerodrill.cli.import_progress:import_progress",
    "interview": "zerodrill.cli.interview:interview",
    "sheet": "zerodrill.cli.sheet:sheet",
    "preview": "zerodrill.cli.preview:preview",
    "schema": "zerodrill.cli.schema:schema",
    "show": "zerodrill.cli.show:show",
    "stats": "zerodrill.cli.stats:stats",
    "sync": "zerodrill.cli.sync:sync",
    "unsuspend": "zerodrill.cli.unsuspend:unsuspend",
    "validate": "zerodrill.cli.validate:validate",
}

SHORT_HELP: dict[str, str] = {
    "anki": "Sync with Anki (AnkiWeb, a server, a collection); fit FSRS.",
    "drill": "Drill due cards in the terminal (SM-2 or FSRS).",
    "export": "Build Anki packages, or files for other apps, from decks.",
    "import-progress": "Bring your Anki reviews into zerodrill's schedule.",
    "interview": "Rehearse an interview question against a clock.",
    "sheet": "Show the night-before sheet (terminal, Markdown or HTML).",
    "preview": "Write every card as Anki shows it to one HTML page.",
    "schema": "Print or write the deck format's JSON Schema, for editors.",
    "show": "Print one card, both sides, as the drill shows it.",
    "stats": "Show review statistics and the 30-day forecast.",
    "sync": "Share reviews with your other machines through a folder.",
    "unsuspend": "List suspended cards, or bring them back into the drill.",
    "validate": "Check decks; report every problem as file:line:col.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing help must not import every subcommand (and with it Textual).
        rows = [(name, SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="zerodrill")
@click.option(
    "--debug",
    is_flag=True,
    envvar="ZERODRILL_DEBUG",
    help="Show the full traceback of an unexpected error (also ZERODRILL_DEBUG=1).",
)
def cli(debug: bool) -> None:
    """Drill ML-systems interview knowledge with spaced repetition, in the terminal or in Anki."""
    # Read by main() when an unexpected error reaches it; click has parsed the flag and the
    # environment variable by its own rules (1/true/yes, 0/false/no).
    _state["debug"] = debug


_state: dict[str, bool] = {"debug": False}


def main(argv: list[str] | None = None) -> Any:
    """Entry point: user errors and unexpected errors end as one line and exit status 1."""
    args = sys.argv[1:] if argv is None else argv
    _state["debug"] = False
    try:
        return cli.main(args=args, prog_name="zerodrill", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        # Click quotes the argument it could not use, which may hold anything the shell passed.
        vars(exc)["message"] = shown(exc.message)  # typed Final, but a plain attribute
        exc.show()
        sys.exit(exc.exit_code)
    except UserError as exc:
        # Errors name paths and ids the user gave: never shown raw.
        click.echo(f"zerodrill: {shown(str(exc))}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        if _state["debug"]:
            raise
        from zerodrill.cli.raised_at import raised_at

        said = str(exc)
        where = raised_at(exc)
        click.echo(
            f"zerodrill: internal error: {type(exc).__name__}{': ' + shown(said) if said else ''}"
            f" ({'raised at ' + shown(where) + '; ' if where else ''}"
            "run again with --debug for the traceback)",
            err=True,
        )
        sys.exit(1)
