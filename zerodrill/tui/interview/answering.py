"""The two steps answered against a clock: the opening question and each follow-up.

The question moves on by itself when its budget runs out; a follow-up shows its overtime
instead, as the learner is comparing a typed answer with the model one.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from zerodrill.srs.interview_run import InterviewRun
from zerodrill.tui.interview.step_screen import QUIT, SCROLL_KEYS, Body, InterviewScreen
from zerodrill.tui.interview.widgets import Prose, markdown_side
from zerodrill.tui.markdown import parse, render
from zerodrill.tui.textual_internals import on_top
from zerodrill.tui.user_errors import user_errors_exit
from zerodrill.tui.widgets.answer_area import AnswerArea
from zerodrill.tui.widgets.card_side import CardSide, SideStyles
from zerodrill.tui.widgets.card_view import beside
from zerodrill.tui.widgets.grade_bar import GradeBar
from zerodrill.tui.widgets.key_bar import KeyBar
from zerodrill.words import plural

TYPE_HINT = "a: type your answer (optional). Enter hands it in, Ctrl+J starts a new line"


class AnsweringScreen(InterviewScreen):
    timed = True
    AUTO_FOCUS = ""  # Enter, q and the digits stay the screen's until the learner types

    TYPING_KEYS = [
        Binding("a,tab", "type_answer", "Type", key_display="a"),
        Binding("escape", "stop_typing", "Done typing", key_display="esc"),
        QUIT,
        *SCROLL_KEYS,
    ]
    BINDINGS = [Binding("enter", "hand_in", "Done", key_display="⏎"), *TYPING_KEYS]

    def __init__(self, run: InterviewRun) -> None:
        super().__init__(run)
        self.box = AnswerArea(placeholder=TYPE_HINT, id="answer-box", soft_wrap=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "type_answer":
            return not self.handed_in and not self.box.has_focus
        if action == "stop_typing":
            return self.box.has_focus
        return True

    def action_type_answer(self) -> None:
        self.box.focus()

    def action_stop_typing(self) -> None:
        self.set_focus(None)

    @on(AnswerArea.Submitted)
    async def _submitted(self) -> None:
        await self.run_action("hand_in")


class QuestionScreen(AnsweringScreen):
    step_name = "Question"
    time_up = False

    def compose(self) -> ComposeResult:
        yield self.header
        minutes = self.run.interview.minutes
        with Body(id="body"):
            yield Static(
                f"Answer out loud, or type. You have {plural(minutes, 'minute')}; "
                "the clock is at the top right.",
                id="lead",
            )
            with Prose(id="prompt"):
                yield markdown_side(self.run.interview.question)
            yield self.box
        yield KeyBar()

    def tick(self) -> None:
        super().tick()
        # Under the too-small notice the time runs on, and is up once the notice goes.
        if self.time_up or self.handed_in or not on_top(self):
            return
        if self.run.elapsed() >= self.run.budget():
            self.time_up = True
            self.app.notify("Time's up: on to the points you covered.", timeout=4)
            self.call_later(self.action_hand_in)

    @user_errors_exit
    def action_hand_in(self) -> None:
        if not self.hand_in():
            return
        self.run.finish_question(self.box.answer)
        self.step_done()


class FollowUpScreen(AnsweringScreen):
    BINDINGS = [
        Binding("enter", "hand_in", "Model answer", key_display="⏎"),
        Binding("0", "grade(0)", "Grade", key_display="0-5"),
        *(Binding(str(g), f"grade({g})", f"Grade {g}", show=False) for g in range(1, 6)),
        *AnsweringScreen.TYPING_KEYS,
    ]

    def __init__(self, run: InterviewRun) -> None:
        card = run.follow_up_card()
        if card is None:
            raise RuntimeError("the interview is past its follow-ups")
        total = len(run.interview.follow_ups)
        self.step_name = f"Follow-up {run.follow_up_index + 1}/{total}"
        super().__init__(run)
        self.card = card
        self.revealed = False
        self.grades = GradeBar()
        self.answer_side = CardSide(id="model")

    def compose(self) -> ComposeResult:
        yield self.header
        with Body(id="body"):
            yield Static("The interviewer follows up:", id="lead")
            with Prose(id="prompt"):
                yield markdown_side(self.card.fields["question"])
                yield self.answer_side
            yield self.box
        yield Static("[b]Enter[/b] shows the model answer beside yours", id="hint")
        yield self.grades
        yield KeyBar()

    def on_mount(self) -> None:
        super().on_mount()
        self.answer_side.display = False
        self.grades.display = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "grade":
            return self.revealed
        if action == "hand_in":
            return not self.revealed
        if action == "type_answer" and self.revealed:
            return False
        return super().check_action(action, parameters)

    def tick(self) -> None:
        if not self.revealed:
            super().tick()

    def action_hand_in(self) -> None:
        if self.revealed or self.handed_in:
            return
        self.tick()
        self.revealed = True
        typed = self.box.answer
        self.set_focus(None)
        self.box.display = False
        answer = parse(self.card.fields["answer"])
        extra = parse(self.card.extra) if self.card.extra.strip() else None

        def build(styles: SideStyles) -> RenderableType:
            markdown = styles.markdown()
            model: RenderableType = render(answer, markdown)
            if extra is not None:
                model = Group(model, Text(), render(extra, markdown))
            return beside(typed, model, styles)

        self.answer_side.show(build)
        self.answer_side.display = True
        self.query_one("#hint").display = False
        self.grades.set_outcomes(self.run.follow_up_choices())
        self.grades.display = True
        self.refresh_bindings()

    @user_errors_exit
    def action_grade(self, grade: int) -> None:
        if not self.revealed or not self.hand_in():
            return
        # The store commits inside: the next screen shows only once the grade is safe.
        self.run.grade_follow_up(grade, self.box.answer)
        self.step_done()

    @on(GradeBar.Graded)
    async def _graded_by_click(self, event: GradeBar.Graded) -> None:
        await self.run_action(f"grade({event.grade})")
