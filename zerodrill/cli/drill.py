"""``zerodrill drill``: the terminal drill. Textual is imported only once the decks and the
database have been checked, so every expected failure is one line and no screen flashes up."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from zerodrill.cli.common import db_option, deck_roots, load_decks, run_to_end, usable_decks
from zerodrill.cli.startup import collector_paused
from zerodrill.deck.control_chars import shown
from zerodrill.deck.model import Deck
from zerodrill.errors import UserError
from zerodrill.paths import default_db_path
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.interview_plan import InterviewChoice, parse_interview
from zerodrill.srs.schedulers import DEFAULT_SCHEDULER, SCHEDULERS
from zerodrill.srs.schedulers.retention import DEFAULT_RETENTION, MAX_RETENTION, MIN_RETENTION
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.tui.drill_session import Summary


class InterviewDate(click.ParamType[InterviewChoice]):
    """``--interview``'s value: YYYY-MM-DD, today or later, or 'none'. A usage error (exit
    2) for anything else, before anything is saved."""

    name = "date"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> InterviewChoice:
        if isinstance(value, InterviewChoice):
            return value
        try:
            return InterviewChoice(parse_interview(str(value), study_day(local_now())))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class _SchedulerName(click.Choice[str]):
    """A scheduler's name, among those registered when the command runs (the registry's)."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(SCHEDULERS)

    @choices.setter
    def choices(self, _: tuple[str, ...]) -> None:
        pass  # the registry's, always


class _Retention(click.FloatRange):
    """A desired retention. click's range lets NaN through (every comparison with it is
    false, so no bound refuses it), and the scheduler refused it only after the other choices
    given were saved: an internal error, with the database changed."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(
                f"{value!r} is not a number: give one from {MIN_RETENTION:.2f} to "
                f"{MAX_RETENTION:.2f}.",
                param,
                ctx,
            )
        return number


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@db_option()
@click.option(
    "--new",
    "new_limit",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="New cards a day.",
)
@click.option("--deck", "deck_id", metavar="ID", help="Drill only the deck with this id.")
@click.option(
    "--buttons",
    type=click.Choice(["4", "6"]),
    help="Grade buttons: 6 for SM-2's grades 0-5 (the default), 4 for Anki's Again / Hard / "
    "Good / Easy on 1-4. Remembered in the database for the next drills.",
)
@click.option(
    "--scheduler",
    type=_SchedulerName(),
    help=f"The scheduler ({DEFAULT_SCHEDULER} unless another was chosen). Every card is "
    "scheduled again from its reviews: switching back gives the old schedule. Remembered.",
)
@click.option(
    "--retention",
    type=_Retention(MIN_RETENTION, MAX_RETENTION),
    metavar="R",
    help=f"The desired retention, {MIN_RETENTION:.2f}-{MAX_RETENTION:.2f} (default "
    f"{DEFAULT_RETENTION}), for a scheduler that aims at one (fsrs): higher means more "
    "reviews, fewer forgotten. Remembered.",
)
@click.option(
    "--interview",
    type=InterviewDate(),
    metavar="DATE",
    help="The day of your interview, as YYYY-MM-DD ('none' clears it): until then, enough new "
    "cards a day to see every card twice before it, and every card back by the day before. "
    "Remembered.",
)
@click.option(
    "--scratch/--personal",
    default=None,
    help="--scratch: a throwaway database, no daily limit (the default when no deck drilled "
    "is bundled or in your database yet; beside one that is, such decks are left out); "
    "--personal: your own database, always.",
)
def drill(
    paths: tuple[Path, ...],
    db: Path | None,
    new_limit: int,
    deck_id: str | None,
    buttons: str | None,
    scratch: bool | None,
    scheduler: str | None,
    retention: float | None,
    interview: InterviewChoice | None,
) -> None:
    """Drill the cards due in PATH... (default: a checkout's decks/, else the bundled decks),
    scheduled by the scheduler you choose (--scheduler).

    Space or Enter shows the answer, then gives the highlighted grade; a digit gives any
    other. u undoes, d picks a deck, s shows statistics, ? lists every key, q quits. Every
    grade is saved the moment it is given.
    """
    layout = int(buttons) if buttons is not None else None
    with collector_paused() as resume:
        summary, db, tried = _run(
            paths,
            db,
            new_limit,
            deck_id,
            layout,
            scratch,
            scheduler=scheduler,
            retention=retention,
            interview=interview,
            on_first_frame=resume,
        )
    if summary is not None and summary.reviews:
        if tried:
            click.echo(
                f"{plural(summary.reviews, 'grade')} given in a scratch sitting, now dropped; "
                "your progress is untouched."
            )
        else:
            click.echo(saved_line(summary, db))


def saved_line(summary: Summary, db: Path) -> str:
    """The line printed on quitting; the database's name may hold any character. Before an
    interview date, it says what tomorrow holds: the cards due and the new ones."""
    tomorrow = f"{summary.due_tomorrow} due tomorrow"
    if summary.interview is not None and summary.day is not None:
        from zerodrill.srs.interview_plan import when_text

        when = when_text(summary.interview, summary.day)
        tomorrow += f", {summary.new_tomorrow} new (interview {when})"
    return f"{plural(summary.reviews, 'grade')} saved to {shown(str(db))}; {tomorrow}."


def _run(
    paths: tuple[Path, ...],
    db: Path | None,
    new_limit: int,
    deck_id: str | None,
    buttons: int | None,
    scratch: bool | None,
    *,
    scheduler: str | None = None,
    retention: float | None = None,
    interview: InterviewChoice | None = None,
    on_first_frame: Callable[[], None],
) -> tuple[Summary | None, Path, bool]:
    """The drill from the command line's arguments: its summary, the database it used, and
    whether that was a scratch one (see zerodrill.cli.scratch)."""
    chosen = deck_roots(paths)
    decks = usable_decks(load_decks(chosen.roots))
    if deck_id is not None and deck_id not in {d.id for d in decks}:
        known = ", ".join(sorted(d.id for d in decks))
        raise UserError(f"no deck with id '{deck_id}' (decks: {known})")

    notice = None
    decks_notice = chosen.notice
    if scratch or (scratch is None and db is None):
        from zerodrill.cli.scratch import decks_not_yours, left_out_notice, scratch_notice

        # Only the decks drilled decide: with --deck, that one.
        drilled = [d for d in decks if deck_id is None or d.id == deck_id]
        strangers = [] if scratch else decks_not_yours(drilled, default_db_path())
        if scratch or len(strangers) == len(drilled):
            notice = scratch_notice(strangers)
        elif strangers:
            # Some decks are the learner's: a real sitting over those, the new ones left out
            # (not drilled, not in the picker) and named, with the way to try them.
            decks = tuple(d for d in decks if d.id not in strangers)
            decks_notice = "\n".join(filter(None, (decks_notice, left_out_notice(strangers))))
    if notice is not None:
        with tempfile.TemporaryDirectory(prefix="zerodrill-scratch-") as tmp:
            # No daily limit: trying a deck means seeing all of it.
            everything = sum(len(card.items()) for deck in decks for card in deck.cards)
            summary, used = _drill(
                decks, Path(tmp) / "scratch.db", everything, deck_id, buttons, notice,
                on_first_frame, scheduler, retention, decks_notice, interview,
            )  # fmt: skip
        return summary, used, True
    if db is None:
        db = default_db_path(create_folder=True)
    summary, used = _drill(
        decks, db, new_limit, deck_id, buttons, None, on_first_frame, scheduler, retention,
        decks_notice, interview,
    )  # fmt: skip
    return summary, used, False


def _drill(
    decks: Sequence[Deck],
    db: Path,
    new_limit: int,
    deck_id: str | None,
    buttons: int | None,
    scratch: str | None,
    on_first_frame: Callable[[], None],
    scheduler: str | None,
    retention: float | None,
    decks_notice: str | None,
    interview: InterviewChoice | None,
) -> tuple[Summary | None, Path]:
    from zerodrill.srs.store import Store

    with Store.open(db) as store:
        from zerodrill.tui.drill_app import create_app

        app = create_app(
            decks,
            store,
            new_limit=new_limit,
            deck_id=deck_id,
            on_first_frame=on_first_frame,
            buttons=buttons,
            scratch=scratch,
            scheduler=scheduler,
            retention=retention,
            interview="saved" if interview is None else interview.day,
            notice=decks_notice,
        )
        summary = run_to_end(app, store)
    return summary, db
