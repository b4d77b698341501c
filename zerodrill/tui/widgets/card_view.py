"""One card: its question, a place to type, and the answer (rendered ahead, shown on reveal).

Both sides are rendered when the card is shown, so revealing is only a class change: the
key press that reveals reaches the screen without parsing any Markdown.
"""

from __future__ import annotations

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

    def compose(self) -> ComposeResult:
        yield Label(id="kind")
        yield Markdown(id="question", open_links=False)
        yield Input(
            placeholder="a: type the missing text, Enter to check",
            id="typed-cloze",
            select_on_focus=False,
        )
        yield TextArea(
            placeholder="Try answering first (optional): press a to type, Esc when done",
            id="typed-text",
            soft_wrap=True,
        )
        with Vertical(id="answer"):
            yield Static(id="check")
            with Horizontal(id="compare"):
                with Vertical(id="yours"):
                    yield Label("Your answer", classes="column-title")
                    yield Static(id="your-answer")
                with Vertical(id="model"):
                    yield Label("Answer", classes="column-title", id="model-title")
                    yield Markdown(id="answer-md", open_links=False)
            yield Markdown(id="extra", open_links=False)
            yield Static(id="refs")

    @property
    def revealed(self) -> bool:
        return self.has_class("-revealed")

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
        s = sides(item)
        kind = item.card.kind
        self.set_class(False, "-revealed")
        for k in Kind:
            self.set_class(k is kind, f"-{k.value.replace('_', '-')}")
        badge = "  [reverse] again [/]" if repeat else ""
        self.query_one("#kind", Label).update(
            f"[b]{s.label}[/b]  [dim]{escape(item.key)}[/dim]{badge}"
        )
        self.query_one("#typed-cloze", Input).value = ""
        self.query_one("#typed-text", TextArea).text = ""
        check_line = self.query_one("#check", Static)
        check_line.update("")
        check_line.display = False
        self.query_one("#model-title", Label).update(
            "Model answer" if kind is Kind.FOLLOW_UP else "Answer"
        )
        refs = item.card.refs
        self.query_one("#refs", Static).update(
            "[dim]Sources:[/dim] " + "  ".join(escape(r) for r in refs) if refs else ""
        )
        self.query_one("#refs").display = bool(refs)
        extra = self.query_one("#extra", Markdown)
        extra.display = bool(s.extra)
        await self.query_one("#question", Markdown).update(s.question)
        await self.query_one("#answer-md", Markdown).update(s.answer)
        if s.extra:
            await extra.update(s.extra)

    def reveal(self) -> Check | None:
        """Show the answer side; for a typed cloze answer, the check of it."""
        if self.item is None or self.revealed:
            return self.result
        typed = self.typed
        item = self.item
        if item.card.kind is Kind.CLOZE and typed is not None and item.ordinal is not None:
            self.result = check(typed, cloze.answers(item.card.fields["text"], item.ordinal))
            check_line = self.query_one("#check", Static)
            check_line.update(_render_check(self.result))
            check_line.display = True
        if item.card.kind is Kind.FOLLOW_UP:
            self.query_one("#your-answer", Static).update(escape(typed or ""))
            self.set_class(typed is not None, "-has-typed")
        self.add_class("-revealed")
        return self.result

    @on(Input.Submitted, "#typed-cloze")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.AnswerSubmitted(self))


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
