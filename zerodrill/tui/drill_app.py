"""The Textual app: wires the screens to a drill session. Screens live in ``screens/``.

:func:`create_app` is the one way to build it, used by ``zerodrill drill`` and by the tests,
so what the tests drive is what the learner runs.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from textual import on
from textual.app import SystemCommand
from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from zerodrill.deck.mentions import CardTitles
    from zerodrill.srs.interview_plan import InterviewChoice
    from zerodrill.tui.screens.deck_picker import DeckPick
    from zerodrill.tui.screens.installed_deck import EditChoice

from zerodrill import paths
from zerodrill.deck.model import Deck
from zerodrill.errors import UserError
from zerodrill.srs.card_actions import FLAGS
from zerodrill.srs.days import local_now
from zerodrill.srs.grades import DEFAULT_LAYOUT, LAYOUTS
from zerodrill.srs.schedulers import DEFAULT_SCHEDULER, SCHEDULERS, title_of
from zerodrill.srs.schedulers.retention import DESIRED_RETENTION
from zerodrill.srs.settings import (
    chosen_scheduler,
    save_interview,
    save_layout,
    save_retention,
    save_scheduler_name,
    taking,
)
from zerodrill.srs.sitting import Session
from zerodrill.srs.store import FileGone, Store, StoreError
from zerodrill.tui.app_base import AppBase, Clock
from zerodrill.tui.drill_session import DrillSession, Summary
from zerodrill.tui.flags import flag_name
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.textual_internals import CommandPalette
from zerodrill.tui.user_errors import user_errors_exit
from zerodrill.words import plural


class ZeroDrillApp(AppBase[Summary]):
    """Screens tell the app what happened by messages; the app decides what shows next."""

    # The rules shared with the interview (where notices go) are in app_base.tcss.
    CSS_PATH = ["zerodrill.tcss", "app_base.tcss"]
    TITLE = "zerodrill"

    def __init__(
        self,
        session: DrillSession,
        *,
        clock: Clock = local_now,
        on_first_frame: Callable[[], None] | None = None,
        buttons: int = DEFAULT_LAYOUT,
        remember_buttons: Callable[[int], str | None] | None = None,
        scheduler: str = DEFAULT_SCHEDULER,
        switch_scheduler: Callable[[str], str | None] | None = None,
        set_interview: Callable[[date | None], str | None] | None = None,
        notice: str | None = None,
        decks: Sequence[Deck] = (),
    ) -> None:
        super().__init__(clock=clock)
        self.session = session
        #: The decks drilled, read again from their files after an edit (key e).
        self.decks: Sequence[Deck] = decks
        #: The questions of each deck's cards as a card naming one shows it, by deck id.
        self._titles: dict[str, CardTitles] = {}
        #: The grades go to a throwaway database (the header says so on every card).
        self.scratch = False
        #: The grade layout: 6 grades or Anki's 4 buttons; see zerodrill.srs.grades.
        self.buttons = buttons
        #: Saves a layout chosen in the drill; returns why it could not, if it could not.
        self.remember_buttons = remember_buttons
        #: The scheduler's name (one of zerodrill.srs.schedulers.SCHEDULERS).
        self.scheduler = scheduler
        #: Schedules the sitting with the scheduler named and remembers it; returns why it
        #: could not be remembered, if it could not.
        self.switch_scheduler = switch_scheduler
        #: Plans the sitting for an interview date (None: for none) and remembers it; returns
        #: why it could not be remembered, if it could not.
        self.set_interview = set_interview
        #: Said once the first frame is up (a layout given on the command line not saved).
        self.notice = notice
        #: Called once the first frame is on screen (``zerodrill drill`` resumes the garbage
        #: collector with it: see zerodrill.cli.startup).
        self.on_first_frame = on_first_frame
        #: True once the first frame is on screen.
        self.started = False

    def first_screen(self) -> Screen[None]:
        return self._session_screen()

    def result_so_far(self) -> Summary:
        return self.session.summary()

    def _session_screen(self) -> Screen[None]:
        if self.session.current is None:
            from zerodrill.tui.screens.nothing_due import NothingDueScreen

            return NothingDueScreen(self.session.title, self.session.outlook(), self.clock())
        return self._drill_screen(warm_up_on_mount=False)

    def _drill_screen(self, *, warm_up_on_mount: bool = True) -> DrillScreen:
        return DrillScreen(
            self.session,
            warm_up_on_mount=warm_up_on_mount,
            buttons=LAYOUTS[self.buttons],
            mark="SCRATCH" if self.scratch else "",
            titles=self.card_titles,
        )

    def card_titles(self, deck_id: str) -> CardTitles | None:
        """The questions of the cards of deck ``deck_id``, as a card naming one shows it."""
        titles = self._titles.get(deck_id)
        if titles is None:
            from zerodrill.deck.mentions import CardTitles

            deck = next((d for d in self.decks if d.id == deck_id), None)
            if deck is None:
                return None
            titles = self._titles[deck_id] = CardTitles(deck.cards)
        return titles

    #: Textual's palette commands the drill keeps. Not Screenshot (a key press writing a file
    #: into the working directory), nor Maximize/Minimize (nothing of the drill's to maximize).
    PALETTE_COMMANDS = ("Theme", "Quit", "Keys")

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title in self.PALETTE_COMMANDS:
                yield command
        yield SystemCommand(
            "Light / dark", "Switch between a light and a dark theme", self.action_toggle_dark
        )
        yield SystemCommand(
            "Unsuspend cards",
            "Bring back every suspended card of the decks drilled (key @ suspends one)",
            self.action_unsuspend_all,
        )
        if isinstance(screen, DrillScreen) and screen.card.item is not None:
            yield from self._flag_commands(screen)
        yield SystemCommand(
            "Grade buttons: 4 / 6",
            "Switch between Anki's four grade buttons and SM-2's six (remembered; key b)",
            self.action_toggle_buttons,
        )
        if self.switch_scheduler is not None:
            other = title_of(self._other_scheduler())
            yield SystemCommand(
                "Scheduler: " + " / ".join(title_of(name) for name in SCHEDULERS),
                f"Schedule with {other} from now on: every card again from its reviews, nothing "
                "lost, and switching back gives the old schedule (remembered)",
                self.action_toggle_scheduler,
            )
        if self.set_interview is not None:
            yield SystemCommand(
                "Interview date",
                "Plan the days before your interview: enough new cards a day to see every card "
                "twice, every card back by the day before (remembered)",
                self.action_interview_date,
            )

    def _flag_commands(self, screen: DrillScreen) -> Iterable[SystemCommand]:
        """A command for each flag the card on show can be given (key f's menu), and one to
        clear the flag it has."""
        now = self.session.marks().flag
        for flag in FLAGS:
            name = flag_name(flag)
            if flag == now:
                said = f"The card is flagged {name.lower()}: this clears it"
            else:
                said = f"Flag the card on show {name.lower()} (f {flag}, or Ctrl+{flag})"
            yield SystemCommand(f"Flag: {name}", said, partial(screen.action_flag, flag))
        if now:
            yield SystemCommand(
                "Flag: none", "Clear the card's flag (f 0)", partial(screen.action_flag, 0)
            )

    def action_command_palette(self) -> None:
        # Not over the too-small notice (whose one key is q), nor over another dialog.
        if self.use_command_palette and self._session_on_top():
            # No id (Textual gives its palette one): a palette just closed is still among the
            # app's nodes until its removal runs, and Ctrl+P again meanwhile met a duplicate id.
            self.push_screen(CommandPalette())

    def search_themes(self) -> None:
        # The palette's Theme command: the same picker as Textual's, in the guarded palette.
        from textual.theme import ThemeProvider

        self.push_screen(
            CommandPalette(providers=[ThemeProvider], placeholder="Search for themes…")
        )

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def on_ready(self) -> None:
        self.started = True
        if self.notice is not None:
            self.notify(self.notice, severity="warning", timeout=8, markup=False)
        if self.on_first_frame is not None:
            self.on_first_frame()
        if isinstance(self.screen, DrillScreen):
            # What later cards need is made ready once the first card is out, not before.
            self.call_later(self.screen.warm_up)

    def _session_on_top(self) -> bool:
        """True while the session's own screen (drill, summary, nothing due) is on top.

        App actions come from that screen's keys, which can still be on their way when a
        dialog opens over it: two quick `d`s must not open two deck pickers.
        """
        stack = self.screen_stack
        return bool(stack) and not isinstance(stack[-1], ModalScreen)

    # -- moving between screens -----------------------------------------------------------

    @on(DrillScreen.Finished)
    @user_errors_exit
    def _drill_finished(self) -> None:
        """The queue is empty: show what was done (or, if nothing was, when to come back)."""
        if self.session.done:
            from zerodrill.tui.screens.summary import SummaryScreen

            self.show(SummaryScreen(self.session.summary(), LAYOUTS[self.buttons]))
        else:
            self.show(self._session_screen())

    # Screens not needed for the first card are imported when first opened: the first card
    # comes sooner (see tests/bench/bench_drill.py).

    def action_help(self) -> None:
        if not self._session_on_top():
            return
        from zerodrill.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.scheduler, LAYOUTS[self.buttons]))

    @user_errors_exit
    def action_stats(self) -> None:
        if not self._session_on_top():
            return
        from zerodrill.tui.screens.stats_screen import StatsScreen

        self.push_screen(StatsScreen(self.session.stats()))

    @user_errors_exit
    def action_pick_deck(self) -> None:
        if not self._session_on_top():
            return
        from zerodrill.tui.screens.deck_picker import DeckPickerScreen

        self.push_screen(
            DeckPickerScreen(self.session.deck_counts(), self.session.deck_id), self._picked
        )

    @user_errors_exit
    def _picked(self, pick: DeckPick | None) -> None:
        if pick is None or pick.deck_id == self.session.deck_id:
            return
        self.session.select_deck(pick.deck_id)
        self.show(self._session_screen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo_last":
            if self.session.can_undo:
                # A binding that names what it undoes is allowed only for that (undo_keys).
                return not parameters or parameters[0] == self.session.next_undo
            # In the drill the key stays on the key bar, dimmed (None), so the bar does not
            # shift under the learner's eyes after the first grade; on the summary and
            # nothing-due screens "Undo last grade" with no grade to undo would mislead, and
            # nothing there moves when it appears.
            return None if isinstance(self.screen, DrillScreen) else False
        if action == "nothing_to_undo":
            # The screens' second binding of u: the key press that undo_last turned down.
            return not self.session.can_undo
        return True

    def action_nothing_to_undo(self) -> None:
        if self._session_on_top():
            self.notify("Nothing to undo.", timeout=2)

    @user_errors_exit
    async def action_undo_last(self, what: str | None = None) -> None:
        """Take back the sitting's last grade or card action (``what``, named by the key that
        asked, is the one :meth:`check_action` let through): its card comes back, question
        side."""
        if not self.session.can_undo or not self._session_on_top():
            return
        what = self.session.next_undo
        self.session.undo()
        screen = self.screen
        if isinstance(screen, DrillScreen):
            await screen.show_current()
        else:
            self.show(self._drill_screen())
        said = {"grade": "Last grade undone.", "bury": "Bury undone.", "suspend": "Suspend undone."}
        self.notify(said.get(what or "", "Last card action undone."), timeout=2)

    @user_errors_exit
    async def action_edit_card(self) -> None:
        """Open the card on show at its line in $VISUAL or $EDITOR, the drill suspended; when
        the editor closes, read the decks again and show the card as the file now has it.

        A card of a deck installed with zerodrill is not edited there (the next install
        would replace the file): a dialog says so and offers to copy the deck to the
        learner's deck folder and edit the copy, which this sitting then reads."""
        item = self.session.current
        if not self._session_on_top() or not isinstance(self.screen, DrillScreen) or item is None:
            return
        pos = item.card.pos
        path = Path(pos.path)
        deck = next((d for d in self.decks if d.id == item.card.deck), None)
        if deck is not None and paths.in_installed_decks(deck.path):
            from zerodrill.deck.user_copy import copy_path
            from zerodrill.tui.screens.installed_deck import InstalledDeckScreen

            copy = copy_path(deck.path, paths.installed_decks_dir(), paths.user_decks_dir())
            self.push_screen(
                InstalledDeckScreen(deck.path, copy, copy_exists=copy.exists()),
                functools.partial(self._edit_a_copy, deck, pos.line),
            )
            return
        await self._edit(path, pos.line)

    @user_errors_exit
    async def _edit_a_copy(self, deck: Deck, line: int, choice: EditChoice | None) -> None:
        """The learner's answer to the installed deck's dialog: copy the deck to their deck
        folder (or not), then edit the copy, which this sitting reads from now on."""
        from zerodrill.deck.user_copy import copy_deck, copy_path
        from zerodrill.tui.screens.installed_deck import EditChoice

        if choice is None or not isinstance(self.screen, DrillScreen):
            return
        installed, folder = paths.installed_decks_dir(), paths.user_decks_dir()
        copy = copy_path(deck.path, installed, folder)
        if choice is not EditChoice.EDIT_COPY:
            try:
                copy_deck(deck, installed, folder, replace=choice is EditChoice.REPLACE)
            except UserError as exc:
                self.notify(str(exc), severity="warning", timeout=8, markup=False)
                return
            self.notify(
                f"Copied to {copy}: this sitting and every later one read your copy.",
                timeout=8,
                markup=False,
            )
        files = [copy if d is deck else d.path for d in self.decks]
        await self._edit(copy, line, files)

    async def _edit(self, path: Path, line: int, files: Sequence[Path] | None = None) -> None:
        """Open ``path`` at ``line`` in the editor, then read the decks again (from ``files``,
        if given: the deck files this sitting reads from now on) and show the card on show."""
        from textual.app import SuspendNotSupported

        from zerodrill.tui.editor import editor_command, run_editor

        screen = self.screen
        if not isinstance(screen, DrillScreen):
            return
        command = editor_command(os.environ, path, line)
        if isinstance(command, str):
            self.notify(command, severity="warning", timeout=8, markup=False)
            return
        try:
            with self.suspend():
                edited = run_editor(command)
        except SuspendNotSupported:
            self.notify(
                "This terminal cannot be handed to an editor", severity="warning", markup=False
            )
            return
        problem = self._read_decks_again(files)
        await screen.show_current()
        for said in (edited.problem, problem):
            if said is not None:
                self.notify(said, severity="warning", timeout=8, markup=False)

    def _read_decks_again(self, files: Sequence[Path] | None = None) -> str | None:
        """Load the decks' files (or ``files``) again into the session; a problem found, as
        one line (the decks as they were are kept then), or None."""
        from zerodrill.deck.cache import load_paths_cached

        deck_files = [deck.path for deck in self.decks] if files is None else list(files)
        result = load_paths_cached(deck_files)
        if result.problems:
            more = len(result.problems) - 1
            also = f" (and {more} more; zerodrill validate lists them)" if more else ""
            return f"{result.problems[0]}{also}; the cards as they were are kept"
        self.decks = result.decks
        self._titles = {}
        self.session.replace_decks(result.decks)
        return None

    @user_errors_exit
    async def action_unsuspend_all(self) -> None:
        """The palette's way back from suspending: every suspended card of these decks."""
        count = self.session.unsuspend_all()
        self.notify(f"{plural(count, 'card')} unsuspended.", timeout=3, markup=False)
        if count and not isinstance(self.screen, DrillScreen) and self.session.current:
            self.show(self._drill_screen())

    @user_errors_exit
    def action_toggle_buttons(self) -> None:
        """Switch between the six grades and Anki's four buttons, and remember it."""
        self.buttons = 4 if self.buttons == 6 else 6
        for screen in self.screen_stack:
            if isinstance(screen, DrillScreen):
                screen.set_buttons(LAYOUTS[self.buttons])
        problem = self.remember_buttons(self.buttons) if self.remember_buttons else None
        if problem is not None:
            self.notify(problem, severity="warning", timeout=8, markup=False)
            return
        keys = "1-4: Again, Hard, Good, Easy" if self.buttons == 4 else "0-5: SM-2's grades"
        self.notify(f"{self.buttons} grade buttons, {keys}.", timeout=3, markup=False)

    def _other_scheduler(self) -> str:
        """The scheduler after the one in use, in the registry's order (round to the first)."""
        names = list(SCHEDULERS)
        at = names.index(self.scheduler) if self.scheduler in names else -1
        return names[(at + 1) % len(names)]

    @user_errors_exit
    def action_toggle_scheduler(self) -> None:
        """Switch to the next scheduler, and remember it: every card is derived again from its
        reviews, and the sitting goes on with the queue the new scheduler gives."""
        if self.switch_scheduler is None or not self._session_on_top():
            return
        other = self._other_scheduler()
        try:
            problem = self.switch_scheduler(other)
        except FileGone:
            raise
        except StoreError as exc:
            # Nothing changed (a locked database, say): the drill goes on as it was.
            still = title_of(self.scheduler)
            self.notify(f"{still} still schedules: {exc}", severity="warning", markup=False)
            return
        self.scheduler = other
        self.show(self._session_screen())
        if problem is not None:
            self.notify(problem, severity="warning", timeout=8, markup=False)
            return
        title = title_of(self.scheduler)
        self.notify(f"{title} schedules every card now.", timeout=3, markup=False)

    @user_errors_exit
    def action_interview_date(self) -> None:
        """Ask for the interview date (the palette's command)."""
        if self.set_interview is None or not self._session_on_top():
            return
        from zerodrill.tui.screens.interview_date import InterviewDateScreen

        today = self.session.day
        self.push_screen(InterviewDateScreen(self.session.interview, today), self._interview_chosen)

    @user_errors_exit
    def _interview_chosen(self, chosen: InterviewChoice | None) -> None:
        if chosen is None or self.set_interview is None:
            return  # Esc: as it was
        try:
            problem = self.set_interview(chosen.day)
        except FileGone:
            raise
        except StoreError as exc:
            # Nothing changed (a locked database, say): the drill goes on as it was.
            self.notify(f"The interview date is unchanged: {exc}", severity="warning", markup=False)
            return
        self.show(self._session_screen())
        if problem is not None:
            self.notify(problem, severity="warning", timeout=8, markup=False)
            return
        from zerodrill.srs.interview_plan import when_text

        plan = self.session.plan
        if chosen.day is None:
            said = "No interview date: the usual schedule."
        else:
            said = f"Interview {when_text(chosen.day, self.session.day)}"
            pace = f": {plural(plan.new_per_day, 'new card')} a day" if plan is not None else ""
            said += f"{pace}."
        self.notify(said, timeout=4, markup=False)


def create_app(
    decks: Sequence[Deck],
    store: Store,
    *,
    clock: Clock = local_now,
    new_limit: int = 20,
    deck_id: str | None = None,
    on_first_frame: Callable[[], None] | None = None,
    buttons: int | None = None,
    scratch: str | None = None,
    scheduler: str | None = None,
    retention: float | None = None,
    interview: date | None | Literal["saved"] = "saved",
    notice: str | None = None,
) -> ZeroDrillApp:
    """The drill app over ``decks``, keeping every grade in ``store``; ``on_first_frame`` is
    called once the first frame is on screen. ``buttons`` (4 or 6) is the grade layout,
    ``scheduler`` the scheduler's name, ``retention`` the desired retention (for a scheduler
    that aims at one) and
    ``interview`` the interview date planned for (None: none): each is remembered in
    ``store``, and without it the one remembered there is used.
    ``scratch`` says on screen that ``store`` is a throwaway one (see zerodrill.cli.scratch);
    ``notice`` is shown with it at the start (which decks were read, in a checkout)."""
    notices: list[str | None] = []
    # Each choice not given is the learner's, as the store opened with it.
    profile = store.profile
    if buttons is None:
        buttons = profile.buttons
    else:
        notices.append(save_layout(store, buttons))
    if scheduler is None:
        scheduler = profile.scheduler_name
    else:
        notices.append(save_scheduler_name(store, scheduler))
    options = {DESIRED_RETENTION.name: retention} if retention is not None else {}
    if retention is not None:
        notices.append(save_retention(store, retention))
        aims = taking(DESIRED_RETENTION)
        if scheduler not in aims and aims:
            # This one has no retention to aim at: say so, or the option seems to do nothing.
            whose = " or ".join(title_of(name) for name in aims)
            notices.append(
                f"The desired retention is {whose}'s: kept for when {whose} schedules "
                f"(--scheduler {aims[0]}, or Ctrl+P Scheduler)."
            )
    if interview == "saved":
        interview = profile.interview
    else:
        notices.append(save_interview(store, interview))
    store.scheduler = chosen_scheduler(store, scheduler, options=options, interview=interview)
    session = Session(
        decks, store, clock=clock, new_limit=new_limit, deck_id=deck_id, interview=interview
    )

    def switch(name: str) -> str | None:
        # Used first, then saved: a switch the database refuses leaves the old choice whole.
        session.use_scheduler(
            chosen_scheduler(store, name, options=options, interview=session.interview)
        )
        return save_scheduler_name(store, name)

    def plan(day: date | None) -> str | None:
        # As a switch of scheduler: used first, then saved.
        name = store.scheduler.name
        session.use_interview(day, chosen_scheduler(store, name, options=options, interview=day))
        return save_interview(store, day)

    # Each choice that could not be saved says so (they share a cause), in one notice.
    unsaved = "\n".join(n for n in notices if n is not None) or None
    app = ZeroDrillApp(
        session,
        clock=clock,
        on_first_frame=on_first_frame,
        buttons=buttons,
        remember_buttons=lambda n: save_layout(store, n),
        scheduler=scheduler,
        switch_scheduler=switch,
        set_interview=plan,
        notice="\n".join(n for n in (notice, unsaved, scratch) if n) or None,
        decks=decks,
    )
    app.scratch = scratch is not None
    return app
