"""The drill: one card at a time, Space or Enter to reveal, then Space or Enter for the
highlighted grade or a digit for any other (0-5, or 1-4 in Anki's layout), u to undo."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import MountError
from textual.widgets import Static

from zerodrill.deck.kinds import Typing
from zerodrill.srs.card_actions import FLAGS, Action
from zerodrill.srs.grades import SIX_BUTTONS, Button, Grade, button_for_key, nearest_button
from zerodrill.tui import markdown
from zerodrill.tui.drill_session import DrillSession
from zerodrill.tui.textual_internals import ClickGuard, on_top
from zerodrill.tui.user_errors import user_errors_exit
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.cued_scroll import CuedScroll
from zerodrill.tui.widgets.grade_bar import GradeBar
from zerodrill.tui.widgets.key_bar import MORE, MORE_KEY, KeyBar
from zerodrill.tui.widgets.session_header import SessionHeader

if TYPE_CHECKING:
    from zerodrill.deck.mentions import CardTitles


class CardScroll(CuedScroll, can_focus=False):
    """Scrolls a long card; never takes focus, so no key is taken from the drill by surprise."""

    CUE = "↓ more: j/↓ PgDn End"
    CUE_KEEPS_ITS_ROW = True
    # Nothing drawn of its own: see CardView.BLANK (the help's scroll has a border).
    BLANK = True


class DrillScreen(ClickGuard):
    class Finished(Message):
        """No card is left to show in this sitting: the app shows what comes next."""

    # Nothing is focused until the learner asks to type: Space, Enter and the digits stay the
    # drill's (while typing, they are text).
    AUTO_FOCUS = ""

    # Short descriptions: each page of the key bar fits at 80 columns (see KeyBar).
    BINDINGS = [
        Binding("enter,space", "reveal", "Answer", key_display="␣⏎", id="reveal"),
        Binding("enter,space", "grade_highlighted", "Good", key_display="␣⏎", id="highlighted"),
        # Digit 1 is in both layouts: it stands for them all on the key bar (see key_label).
        Binding("1", "press(1)", "Grade", id="grade"),
        *(Binding(str(d), f"press({d})", f"Grade {d}", show=False) for d in (0, 2, 3, 4, 5)),
        # On the answer side of a card with sources: their one line unfolds into a list.
        Binding("o", "toggle_sources", "Sources"),
        Binding("a", "type_answer", "Type"),
        # Where a and u would do nothing, a second binding of the key says why (see check_action).
        Binding("a", "nothing_to_type", show=False),
        Binding("tab", "type_answer", "Type", show=False),
        Binding("escape", "stop_typing", "Done typing", key_display="esc"),
        Binding("u", "app.undo_last", "Undo"),
        Binding("u", "app.nothing_to_undo", show=False),
        Binding("e", "app.edit_card", "Edit"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.finish", "Quit"),
        Binding("minus", "act('bury')", "Bury", key_display="-", group=MORE),
        Binding("at", "act('suspend')", "Suspend", key_display="@", group=MORE),
        Binding("asterisk", "toggle_mark", "Mark", key_display="*", group=MORE),
        # A menu of the flags: Anki's Ctrl+1-7 reach no program in tmux or many a terminal.
        Binding("f", "flag_menu", "Flag", group=MORE),
        *(Binding(f"ctrl+{n}", f"flag({n})", f"Flag {n}", show=False) for n in range(1, 8)),
        Binding("d", "app.pick_deck", "Decks", group=MORE),
        Binding("s", "app.stats", "Stats", group=MORE),
        Binding(MORE_KEY, "more", "More", show=False),
        Binding("escape", "more(False)", show=False),
        Binding("up,k", "scroll(-1)", "Scroll up", show=False),
        Binding("down,j", "scroll(1)", "Scroll down", show=False),
        Binding("pageup", "scroll_page(-1)", "Page up", show=False),
        Binding("pagedown", "scroll_page(1)", "Page down", show=False),
        Binding("home", "scroll_to_end(0)", "Top", show=False),
        Binding("end", "scroll_to_end(1)", "Bottom", show=False),
        Binding("b", "app.toggle_buttons", "Buttons 4/6", show=False),
    ]

    def __init__(
        self,
        session: DrillSession,
        *,
        warm_up_on_mount: bool = True,
        buttons: tuple[Button, ...] = SIX_BUTTONS,
        mark: str = "",
        titles: Callable[[str], CardTitles | None] | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.titles = titles
        #: Shown before the deck's title ("SCRATCH": grades not kept).
        self.mark = mark
        # The app warms its first screen up once the first frame is out (sooner delays it).
        self.warm_up_on_mount = warm_up_on_mount
        self.suggested: int | None = None
        # Made here, not queried: check_action runs before the screen is composed, too.
        self.card = CardView(id="card")
        self.grades = GradeBar(buttons)
        self.key_bar = KeyBar()

    def compose(self) -> ComposeResult:
        yield SessionHeader(self.mark)
        with CardScroll(id="card-scroll"):
            yield self.card
        # The hint and the grade bar take the same rows: the card's area keeps its size.
        with Vertical(id="under-question"):
            yield Static(id="hint")
        yield self.grades  # hidden until the answer shows
        yield self.key_bar

    async def on_mount(self) -> None:
        await self.show_current()
        if self.warm_up_on_mount:
            self.call_after_refresh(self.warm_up)

    async def warm_up(self) -> None:
        markdown.warm_up()
        try:
            await self.card.mount_typing_widgets()
        except MountError:
            # The drill was quit or moved on meanwhile: the need is gone with the screen.
            if self.card.is_attached:
                raise

    @user_errors_exit
    async def show_current(self) -> None:
        item = self.session.current
        self._refresh_header()
        if item is None:
            self.post_message(self.Finished())
            return
        self.suggested = None
        self._unfocus()
        await self.card.show(
            item,
            repeat=self.session.is_repeat,
            marks=self.session.marks(),
            titles=self.titles(item.card.deck) if self.titles is not None else None,
        )
        self._show_side(revealed=False)
        typing = "   [b]a[/b] type your answer first" if self.card.typing_widget else ""
        if item.card.kind.typing is Typing.FREE:
            typing += "   [b]Ctrl+J[/b] new line"
        self.query_one("#hint", Static).update(
            f"[b]Space[/b]/[b]Enter[/b] show the answer{typing}", layout=False
        )
        self.query_one(CardScroll).scroll_home(animate=False)
        self.key_bar.show_more(False)  # as Anki's More menu closes: another card
        self.refresh_bindings()

    def _unfocus(self) -> None:
        # Only when something has focus: each focus change recomposes the footer.
        if self.focused is not None:
            self.set_focus(None)

    def _show_side(self, *, revealed: bool) -> None:
        self.query_one("#under-question").display = not revealed
        self.grades.display = revealed

    def _refresh_header(self) -> None:
        interview, day = self.session.interview, self.session.day
        note = ""
        if interview is not None and interview >= day:
            from zerodrill.srs.interview_plan import when_text

            note = f"interview {when_text(interview, day)}"
        self.query_one(SessionHeader).set_state(
            self.session.title, self.session.remaining(), self.session.done, note
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        revealed = self.card.revealed
        typing = self.card.typing_has_focus
        if action == "grade":
            return revealed
        if action == "grade_highlighted":
            return revealed and not typing
        if action == "press":
            # A digit that is no button of the layout (0 and 5 of Anki's) does nothing.
            (key,) = parameters
            return revealed and button_for_key(self.grades.buttons, int(str(key))) is not None
        if action == "reveal":
            return not revealed and self.session.current is not None
        if action == "toggle_sources":
            item = self.card.item
            return revealed and item is not None and bool(item.card.refs)
        if action == "type_answer":
            return not revealed and not typing and self.card.typing_widget is not None
        if action == "nothing_to_type":
            return not revealed and self.card.typing_widget is None
        if action == "stop_typing":
            return typing
        if action == "more" and parameters == (False,):
            # While typing, the binding before this one takes Esc (stop typing).
            return self.key_bar.more and not typing
        return True

    @user_errors_exit
    async def action_reveal(self) -> None:
        if self.card.revealed or not self._showing_current():
            return
        self._unfocus()
        result = self.card.reveal(self._grade_name)
        self.suggested = result.suggested_grade if result else None
        self.grades.set_outcomes(self.session.choices(self._layout), self.suggested)
        self._show_side(revealed=True)
        self.key_bar.show_more(False)  # the grade keys are on the first page
        self.refresh_bindings()

    def _grade_name(self, grade: Grade) -> str:
        button = nearest_button(self.grades.buttons, grade)
        return f"{button.key} {button.name}"

    @user_errors_exit
    async def action_grade(self, quality: int) -> None:
        if not self.card.revealed or not self._showing_current():
            return
        # The store commits inside grade(): the next card appears only after the grade is safe.
        self.session.grade(quality, typed=self.card.typed, buttons=self._layout)
        await self.show_current()

    async def action_press(self, key: int) -> None:
        button = button_for_key(self.grades.buttons, key)
        if button is not None:
            await self.action_grade(int(button.grade))

    async def action_grade_highlighted(self) -> None:
        await self.action_grade(int(self.grades.highlighted.grade))

    def key_label(self, binding: Binding) -> tuple[str, str] | None:
        """(key shown, description) for the bindings worded by the layout, else None."""
        if binding.id == "highlighted":
            return binding.key_display or "", self.grades.highlighted.name
        if binding.id == "grade":
            keys = [b.key for b in self.grades.buttons]
            return f"{min(keys)}-{max(keys)}", binding.description
        return None

    @property
    def _layout(self) -> int:
        """The layout graded on, as the log records it: its number of buttons (6 or 4)."""
        return len(self.grades.buttons)

    def set_buttons(self, buttons: tuple[Button, ...]) -> None:
        self.grades.set_buttons(buttons)
        if self.card.revealed and self._showing_current():
            self.grades.set_outcomes(self.session.choices(self._layout), self.suggested)
        self.refresh_bindings()

    def _showing_current(self) -> bool:
        """The card on show is the session's current one, and this screen is on top: a key
        on its way while the session moved on must not touch another card."""
        current = self.session.current
        return current is not None and self.card.item is current and on_top(self)

    @user_errors_exit
    async def action_act(self, action: str) -> None:
        """Bury (until tomorrow) or suspend the card on show, and show the next one."""
        if not self._showing_current():
            return
        self.session.act(Action(action))
        done = "buried until tomorrow" if action == "bury" else "suspended"
        self.notify(f"Card {done}: u takes it back.", timeout=3, markup=False)
        await self.show_current()

    @user_errors_exit
    def action_toggle_mark(self) -> None:
        if not self._showing_current():
            return
        marked = self.session.marks().marked
        self.session.act(Action.UNMARK if marked else Action.MARK)
        self.notify("Card unmarked." if marked else "Card marked.", timeout=2, markup=False)
        self.card.set_marks(self.session.marks())

    @user_errors_exit
    def action_flag(self, flag: int) -> None:
        """Set the card's flag to ``flag``, or clear it if it has that flag already (Anki);
        0 clears it."""
        if not self._showing_current():
            return
        now = self.session.marks().flag
        if flag == now == 0:
            self.notify("The card has no flag to clear.", timeout=2, markup=False)
            return
        same = flag in (now, 0)
        self.session.act(Action.FLAG, flag=0 if same else flag)
        said = "Flag cleared." if same else f"Flagged {FLAGS[flag]}."
        self.notify(said, timeout=2, markup=False)
        self.card.set_marks(self.session.marks())

    def action_flag_menu(self) -> None:
        if not self._showing_current():
            return
        from zerodrill.tui.screens.flag_menu import FlagMenu

        item = self.card.item

        async def chosen(flag: int | None) -> None:
            if flag is not None and self.card.item is item:
                await self.action_flag(flag)

        self.app.push_screen(FlagMenu(self.session.marks().flag), chosen)

    def action_toggle_sources(self) -> None:
        if self.card.toggle_sources():
            # Unfolded at the foot of the answer: scrolled into sight once laid out.
            self.call_after_refresh(self.query_one(CardScroll).scroll_end, animate=False)

    def action_more(self, more: bool | None = None) -> None:
        self.key_bar.show_more(not self.key_bar.more if more is None else more)
        self.refresh_bindings()  # Esc's binding follows the page

    async def action_type_answer(self) -> None:
        widget = await self.card.typing_ready()
        # Focused now, not by Widget.focus()'s callback queued behind keys on their way: a
        # quick Space moved on first, and the hidden box took the digits as text.
        if widget is not None and widget is self.card.typing_widget and on_top(self):
            self.set_focus(widget)  # Textual refreshes the bindings on a focus change

    def action_nothing_to_type(self) -> None:
        self.notify("Nothing to type on this card: Space or Enter shows the answer.", timeout=3)

    def action_stop_typing(self) -> None:
        self._unfocus()

    def action_scroll(self, lines: int) -> None:
        self.query_one(CardScroll).scroll_relative(y=lines, animate=False)

    def action_scroll_page(self, pages: int) -> None:
        scroll = self.query_one(CardScroll)
        # A page less a line, so the line read last stays in sight.
        step = max(scroll.scrollable_content_region.height - 1, 1)
        scroll.scroll_relative(y=pages * step, animate=False)

    def action_scroll_to_end(self, bottom: int) -> None:
        scroll = self.query_one(CardScroll)
        if bottom:
            scroll.scroll_end(animate=False)
        else:
            scroll.scroll_home(animate=False)

    @on(CardView.AnswerSubmitted)
    async def _answer_submitted(self) -> None:
        await self.action_reveal()

    @on(GradeBar.Graded)
    async def _graded_by_click(self, event: GradeBar.Graded) -> None:
        await self.action_grade(event.grade)
