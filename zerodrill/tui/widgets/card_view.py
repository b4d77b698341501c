"""One card: its question, a place to type, and the answer (shown on reveal).

Sides and kinds are switched with ``display`` on the few widgets concerned, never with a CSS
class on a container: a class change restyles every widget below it. The typing widgets are
mounted when a card first needs one, or just after the first card is on screen: the first
card does not wait for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import AwaitMount
from textual.widgets import Label, Static

from zerodrill.deck import cloze
from zerodrill.deck.model import Item, Kind
from zerodrill.tui.check import Check, check
from zerodrill.tui.render import sides
from zerodrill.tui.widgets.markdown_text import MarkdownText

if TYPE_CHECKING:
    from textual.widgets import Input, TextArea

#: The widget each kind types into, by id.
TYPING_IDS = {Kind.CLOZE: "typed-cloze", Kind.FOLLOW_UP: "typed-text"}


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
        self._typing: dict[str, Input | TextArea] = {}
        self._mounting: dict[str, AwaitMount] = {}

    def compose(self) -> ComposeResult:
        yield Label(id="kind")
        yield MarkdownText(id="question")
        yield Static(id="divider")
        with Vertical(id="answer"):
            yield Static(id="check")
            with Horizontal(id="compare"):
                with Vertical(id="yours"):
                    yield Label("Your answer", classes="column-title")
                    yield Static(id="your-answer")
                with Vertical(id="model"):
                    yield Label("Model answer", classes="column-title", id="model-title")
                    yield MarkdownText(id="answer-md")
            yield MarkdownText(id="extra")
            yield Static(id="refs")

    @property
    def typed(self) -> str | None:
        """What the learner typed for this card, or None if nothing."""
        widget = self._typing_for(self.item)
        if widget is None:
            return None
        text = widget.text if isinstance(widget, _text_area()) else widget.value
        return text if text.strip() else None

    @property
    def typing_widget(self) -> Input | TextArea | None:
        """Where the learner may type before the reveal; None for kinds without one."""
        if self.revealed:
            return None
        return self._typing_for(self.item)

    def _typing_for(self, item: Item | None) -> Input | TextArea | None:
        if item is None or item.card.kind not in TYPING_IDS:
            return None
        return self._typing.get(TYPING_IDS[item.card.kind])

    async def _ensure_typing(self, name: str) -> Input | TextArea:
        """The typing widget ``name``, mounted (hidden) if it was not yet."""
        if name not in self._typing:
            widget = _make_typing_widget(name)
            widget.display = False
            self._typing[name] = widget
            self._mounting[name] = self.mount(widget, before="#divider")
        await self._mounting[name]
        return self._typing[name]

    async def mount_typing_widgets(self) -> None:
        """Mount what later cards will type into, so no key press waits for it."""
        for name in TYPING_IDS.values():
            await self._ensure_typing(name)

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
        needed = TYPING_IDS.get(kind)
        if needed is not None:
            await self._ensure_typing(needed)
        for name, widget in self._typing.items():
            widget.display = name == needed
            if isinstance(widget, _text_area()):
                widget.text = ""
            else:
                widget.value = ""
        if kind is Kind.CLOZE and item.ordinal is not None:
            blanks = len(cloze.answers(item.card.fields["text"], item.ordinal))
            self._typing[TYPING_IDS[kind]].placeholder = (  # type: ignore[union-attr]
                f"a: type the {blanks} missing parts, separated by commas; Enter to check"
                if blanks > 1
                else "a: type the missing text; Enter to check"
            )
        self.query_one("#check", Static).display = False
        self.query_one("#yours").display = False
        self.query_one("#model-title").display = False
        self.query_one("#answer").display = False
        self.query_one("#divider").display = False
        question = self.query_one("#question", MarkdownText)
        question.display = True
        question.update(s.question)
        self.query_one("#answer-md", MarkdownText).update(s.answer)
        refs = item.card.refs
        self.query_one("#refs", Static).update(
            "[dim]Sources:[/dim] " + "  ".join(_ref(r) for r in refs) if refs else ""
        )
        self.query_one("#refs").display = bool(refs)
        extra = self.query_one("#extra", MarkdownText)
        extra.update(s.extra)
        extra.display = bool(s.extra)

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
        for widget in self._typing.values():
            widget.display = False
        # The rule under the question; a revealed cloze shows no question to set apart.
        self.query_one("#divider").display = kind is not Kind.CLOZE
        self.query_one("#answer").display = True
        return self.result

    @property
    def typing_has_focus(self) -> bool:
        return any(widget.has_focus for widget in self._typing.values())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # By handler name rather than @on(Input.Submitted): that would import Input up front.
        if event.input.id == TYPING_IDS[Kind.CLOZE]:
            event.stop()
            self.post_message(self.AnswerSubmitted(self))


def _make_typing_widget(name: str) -> Input | TextArea:
    # Imported here: TextArea is a large module, and the first card seldom needs it.
    if name == TYPING_IDS[Kind.CLOZE]:
        from textual.widgets import Input

        return Input(id=name, select_on_focus=False)
    from textual.widgets import TextArea

    return TextArea(
        placeholder="Try answering first (optional): press a to type, Esc when done",
        id=name,
        soft_wrap=True,
    )


def _text_area() -> type[TextArea]:
    from textual.widgets import TextArea

    return TextArea


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
