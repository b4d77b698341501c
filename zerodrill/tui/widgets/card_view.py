"""One card: its question, a place to type, and the answer (rendered ahead, shown on reveal).

The question is rendered first; the answer is rendered just after that frame is on screen
(long before anyone presses Enter), so neither the key that brings a card nor the one that
reveals it waits for the other side's Markdown. Sides and
kinds are switched with ``display`` on the few widgets concerned, never with a CSS class on a
container: a class change restyles every widget below it (each Markdown block included), and
that was most of the time between a key press and the screen.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Markdown, Static, TextArea

from zerodrill.deck import cloze
from zerodrill.deck.model import Item, Kind
from zerodrill.tui.check import Check, check
from zerodrill.tui.render import sides


class CardView(Vertical):
    """The card being drilled. The screen decides when to reveal; the view only shows."""

    @dataclass
    class AnswerSubmitted(Message):
        """Enter was pressed in the cloze input: reveal and check what was typed."""

        card_view: CardView

        @property
        def control(self) -> CardView:
            return self.card_view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.item: Item | None = None
        self.result: Check | None = None
        self.revealed = False
        self._answer_ready = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield Label(id="kind")
        yield Markdown(id="question", open_links=False)
        yield Input(id="typed-cloze", select_on_focus=False)
        yield TextArea(
            placeholder="Try answering first (optional): press a to type, Esc when done",
            id="typed-text",
            soft_wrap=True,
        )
        yield Static(id="divider")
        with Vertical(id="answer"):
            yield Static(id="check")
            with Horizontal(id="compare"):
                with Vertical(id="yours"):
                    yield Label("Your answer", classes="column-title")
                    yield Static(id="your-answer")
                with Vertical(id="model"):
                    yield Label("Model answer", classes="column-title", id="model-title")
                    yield Markdown(id="answer-md", open_links=False)
            yield Markdown(id="extra", open_links=False)
            yield Static(id="refs")

    @property
    def typed(self) -> str | None:
        """What the learner typed for this card, or None if nothing."""
        if self.item is None:
            return None
        if self.item.card.kind is Kind.CLOZE:
            text = self.query_one("#typed-cloze", Input).value
        elif self.item.card.kind is Kind.FOLLOW_UP:
            text = self.query_one("#typed-text", TextArea).text
        else:
            return None
        return text if text.strip() else None

    @property
    def typing_widget(self) -> Input | TextArea | None:
        """Where the learner may type before the reveal; None for kinds without one."""
        if self.item is None or self.revealed:
            return None
        if self.item.card.kind is Kind.CLOZE:
            return self.query_one("#typed-cloze", Input)
        if self.item.card.kind is Kind.FOLLOW_UP:
            return self.query_one("#typed-text", TextArea)
        return None

    async def show(self, item: Item, *, repeat: bool = False) -> None:
        """Put ``item`` up, question side."""
        self.item = item
        self.result = None
        self.revealed = False
        s = sides(item)
        kind = item.card.kind
        badge = "  [reverse] again [/]" if repeat else ""
        self.query_one("#kind", Label).update(
            f"[b]{s.label}[/b]  [dim]{escape(item.key)}[/dim]{badge}"
        )
        typed_cloze = self.query_one("#typed-cloze", Input)
        typed_cloze.value = ""
        typed_cloze.display = kind is Kind.CLOZE
        if kind is Kind.CLOZE and item.ordinal is not None:
            blanks = len(cloze.answers(item.card.fields["text"], item.ordinal))
            typed_cloze.placeholder = (
                f"a: type the {blanks} missing parts, separated by commas; Enter to check"
                if blanks > 1
                else "a: type the missing text; Enter to check"
            )
        typed_text = self.query_one("#typed-text", TextArea)
        typed_text.text = ""
        typed_text.display = kind is Kind.FOLLOW_UP
        self.query_one("#check", Static).display = False
        self.query_one("#yours").display = False
        self.query_one("#model-title").display = False
        self.query_one("#answer").display = False
        self.query_one("#divider").display = False
        question = self.query_one("#question", Markdown)
        question.display = True
        refs = item.card.refs
        self.query_one("#refs", Static).update(
            "[dim]Sources:[/dim] " + "  ".join(_ref(r) for r in refs) if refs else ""
        )
        self.query_one("#refs").display = bool(refs)
        extra = self.query_one("#extra", Markdown)
        extra.display = bool(s.extra)
        self._answer_ready = ready = asyncio.Event()
        await question.update(s.question)
        self.call_after_refresh(self._render_answer, item, s.answer, s.extra, ready)

    async def _render_answer(
        self, item: Item, answer: str, extra: str, ready: asyncio.Event
    ) -> None:
        if self.item is item:  # not if another card came meanwhile
            updates = [self.query_one("#answer-md", Markdown).update(answer)]
            if extra:
                updates.append(self.query_one("#extra", Markdown).update(extra))
            for update in updates:  # started together, they mount concurrently
                await update
        ready.set()

    async def answer_rendered(self) -> None:
        """Wait until the answer side of the card on show is ready to be revealed."""
        await self._answer_ready.wait()

    def reveal(self) -> Check | None:
        """Show the answer side; for a typed cloze answer, the check of it."""
        if self.item is None or self.revealed:
            return self.result
        self.revealed = True
        typed = self.typed
        item = self.item
        kind = item.card.kind
        if kind is Kind.CLOZE:
            # A cloze shows its text once: with the blank before, filled in after.
            self.query_one("#question").display = False
            if typed is not None and item.ordinal is not None:
                self.result = check(typed, cloze.answers(item.card.fields["text"], item.ordinal))
                check_line = self.query_one("#check", Static)
                check_line.update(_render_check(self.result))
                check_line.display = True
        if kind is Kind.FOLLOW_UP and typed is not None:
            self.query_one("#your-answer", Static).update(escape(typed))
            self.query_one("#yours").display = True
            self.query_one("#model-title").display = True
        self.query_one("#typed-cloze").display = False
        self.query_one("#typed-text").display = False
        # The rule under the question; a revealed cloze shows no question to set apart.
        self.query_one("#divider").display = kind is not Kind.CLOZE
        self.query_one("#answer").display = True
        return self.result

    @on(Input.Submitted, "#typed-cloze")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.AnswerSubmitted(self))


def _ref(ref: str) -> str:
    """A source, as a link the terminal can open when it is a URL."""
    if ref.startswith(("https://", "http://")):
        return f"[link={escape(ref)!r}]{escape(ref)}[/link]"
    return escape(ref)


def _render_check(result: Check) -> str:
    lines: list[str] = []
    for part in result.parts:
        runs = "".join(
            f"[$text-success on $success-muted]{escape(t)}[/]"
            if ok
            else f"[$text-error on $error-muted strike]{escape(t)}[/]"
            for ok, t in part.runs
        )
        if part.right:
            lines.append(f"[$text-success]✔[/] {runs}")
        else:
            typed = runs or "[dim](nothing)[/dim]"
            lines.append(f"[$text-error]✘[/] {typed}  →  [b]{escape(part.expected)}[/b]")
    verdict = {4: "Right", 3: "Almost"}.get(result.suggested_grade, "Not quite")
    lines.append(f"[dim]{verdict}: grade {result.suggested_grade} suggested.[/dim]")
    return "\n".join(lines)
