"""The steps the learner ticks (the points covered, the red flags said), and the talk track."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.styled import Styled
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from zerodrill.deck.model import Card, Deck
from zerodrill.srs.interview_run import InterviewRun
from zerodrill.tui.interview.step_screen import QUIT, SCROLL_KEYS, Body, InterviewScreen
from zerodrill.tui.interview.widgets import Checklist, Entry, Prose, built_side
from zerodrill.tui.markdown import parse, render
from zerodrill.tui.screens.dialog import Dialog
from zerodrill.tui.user_errors import user_errors_exit
from zerodrill.tui.widgets.card_side import SideStyles
from zerodrill.tui.widgets.key_bar import KeyBar

TICK_KEYS = [
    Binding("1", "tick(0)", "Tick", key_display="1-9"),
    *(Binding(str(n), f"tick({n - 1})", f"Tick {n}", show=False) for n in range(2, 10)),
    Binding("space", "tick", "Tick", show=False),
    Binding("up", "move(-1)", "Up", show=False),
    Binding("down", "move(1)", "Down", show=False),
]


class ChecklistScreen(InterviewScreen):
    AUTO_FOCUS = ""
    lead = ""

    def __init__(self, run: InterviewRun, entries: Sequence[Entry]) -> None:
        super().__init__(run)
        self.checklist = Checklist(entries, checked=run.ticked, id="checklist")

    def compose(self) -> ComposeResult:
        yield self.header
        with Body(id="body"):
            yield Static(self.lead, id="lead")
            yield self.checklist
            yield from self.below()
        yield KeyBar()

    def below(self) -> ComposeResult:
        return iter(())

    def action_tick(self, index: int | None = None) -> None:
        if not self.handed_in:
            self.checklist.toggle(index)

    def action_move(self, step: int) -> None:
        self.checklist.move(step)

    @on(Checklist.Changed)
    @user_errors_exit
    def _save_ticks(self) -> None:
        # A tick still on its way once the step is handed in is in what was handed in.
        if not self.handed_in:
            self.run.tick(self.checklist.checked)


class PointsScreen(ChecklistScreen):
    step_name = "Points"
    lead = (
        "[b]Which of these did you cover?[/b]  A digit, Space or a click ticks one; "
        "[b]t[/b] shows the model talk track."
    )
    BINDINGS = [
        *TICK_KEYS,
        Binding("t", "talk_track", "Talk track"),
        Binding("enter", "hand_in", "Go on", key_display="⏎"),
        QUIT,
        *SCROLL_KEYS,
    ]

    def __init__(self, run: InterviewRun, typed: str | None = None) -> None:
        super().__init__(run, [Entry(p.text) for p in run.interview.points])
        self.typed = typed

    def below(self) -> ComposeResult:
        if self.typed:
            # What the learner typed, to tick against; as text, never markup.
            yield Static(Text.assemble(("Your answer\n", "bold"), self.typed), id="typed")

    def action_talk_track(self) -> None:
        self.app.push_screen(TalkTrackScreen(self.run.deck, self.run))

    @user_errors_exit
    def action_hand_in(self) -> None:
        if not self.hand_in():
            return
        self.run.set_points(self.checklist.checked)
        self.step_done()


class RedFlagsScreen(ChecklistScreen):
    step_name = "Red flags"
    lead = (
        "[b]Did you say any of these?[/b]  Tick each one you said (a digit, Space or a "
        "click); each is a lapse of its card. Enter when done."
    )
    BINDINGS = [
        *TICK_KEYS,
        Binding("enter", "hand_in", "Done", key_display="⏎"),
        QUIT,
        *SCROLL_KEYS,
    ]

    def __init__(self, run: InterviewRun, cards: Sequence[Card]) -> None:
        super().__init__(run, [Entry(card.fields["claim"]) for card in cards])
        self.cards = tuple(cards)

    @user_errors_exit
    def action_hand_in(self) -> None:
        if not self.hand_in():
            return
        said = [self.cards[n].id for n in self.checklist.checked]
        self.run.set_red_flags(said)
        self.step_done()


class TalkTrackScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape,t,enter", "dismiss", "Close", key_display="esc"),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
        QUIT,
    ]

    def __init__(self, deck: Deck, run: InterviewRun) -> None:
        super().__init__()
        self.deck = deck
        self.run = run

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="talk-track"):
            yield Static("[b]Model talk track[/b]  the points in order, and what backs each")
            with Prose():
                yield built_side(talk_track(self.deck, self.run))
        yield KeyBar()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#talk-track", VerticalScroll).scroll_relative(y=lines, animate=False)


def talk_track(deck: Deck, run: InterviewRun) -> Callable[[SideStyles], RenderableType]:
    """A build (see CardSide) drawing every point, and under it what its cards teach."""
    parts = [
        (n, parse(point), [parse(answer) for answer in answers])
        for n, (point, answers) in enumerate(deck.talk_track(run.interview), start=1)
    ]

    def build(styles: SideStyles) -> RenderableType:
        markdown = styles.markdown()
        grid = Table.grid(padding=(0, 1, 0, 0), expand=True)
        grid.add_column(width=3, no_wrap=True)
        grid.add_column(ratio=1)
        for n, point, answers in parts:
            grid.add_row(
                Text(f"{n}.", styles.accent + Style(bold=True)),
                Styled(render(point, markdown), Style(bold=True)),
            )
            for answer in answers:
                grid.add_row(
                    Text(), Padding(Styled(render(answer, markdown), styles.muted), (1, 0, 0, 2))
                )
            grid.add_row()
        return grid

    return build
