"""One card: its question, a place to type, and the answer (shown on reveal).

Two widgets, one per side, each drawing one Rich renderable: each widget costs a mount and a
restyle on every key press. Sides switch by ``display``, never by a CSS class on a container
(that restyles everything below). The typing widgets are mounted after the first card is up:
no card's first frame waits for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.style import Style
from rich.styled import Styled
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widget import AwaitMount, MountError

from zerodrill.deck import cloze
from zerodrill.deck.kinds import Sides, Typing
from zerodrill.deck.model import Item
from zerodrill.srs.card_actions import FLAGS, NO_MARKS, CardMarks
from zerodrill.tui import flags
from zerodrill.tui.markdown import parse, quoted, render
from zerodrill.tui.widgets.card_side import (
    SIDE_COMPONENT_CLASSES,
    SIDE_CSS,
    Build,
    CardSide,
    SideStyles,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.widgets import Input, TextArea

    from zerodrill.deck.mentions import CardTitles
    from zerodrill.srs.answer_check import Check
    from zerodrill.srs.grades import Grade
    from zerodrill.tui.markdown_tree import Document

    Parsed = Document | tuple[str, ...]
    AnswerWith = tuple[Check | None, str | None, Callable[[Grade], str] | None]
    from zerodrill.tui.widgets.answer_area import AnswerArea

#: The widget each way of typing an answer (``CardKind.typing``) types into, by id.
TYPING_IDS = {Typing.BLANKS: "typed-cloze", Typing.FREE: "typed-text"}


class CardView(Vertical):
    DEFAULT_CSS = SIDE_CSS
    COMPONENT_CLASSES = SIDE_COMPONENT_CLASSES
    # Nothing of its own is drawn: Textual then gives its rows as blank lines, unstyled.
    BLANK = True

    @dataclass
    class AnswerSubmitted(Message):
        """Enter was pressed where an answer is typed: reveal (and check) what was typed."""

        card_view: CardView

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.item: Item | None = None
        self.result: Check | None = None
        self.revealed = False
        self._sides: Sides | None = None
        #: The card on show is back for another go in this sitting.
        self._repeat = False
        self._marks = NO_MARKS
        #: The question and the quote above it, parsed.
        self._question: tuple[Parsed, Parsed | None] = ((), None)
        #: What the answer side was last drawn with besides the card (see _answer_build).
        self._answer_with: AnswerWith = (None, None, None)
        self.sources_open = False
        self._cloze_answers: list[str] = []
        self._typing: dict[str, Input | TextArea] = {}
        self._mounting: dict[str, AwaitMount] = {}
        #: The answer side as it is when nothing typed changes it, drawn ahead while the
        #: question is read (see CardSide.prepare).
        self._plain_answer: Build | None = None

    def compose(self) -> ComposeResult:
        yield CardSide(id="question")
        yield CardSide(id="answer")

    @property
    def answer_markdown(self) -> str:
        return self._sides.answer if self._sides is not None else ""

    @property
    def typed(self) -> str | None:
        widget = self._typing_for(self.item)
        text = _text_in(widget) if widget is not None else ""
        return text if text.strip() else None

    @property
    def typing_widget(self) -> Input | TextArea | None:
        """Where the learner may type before the reveal; None for kinds without one."""
        return None if self.revealed else self._typing_for(self.item)

    @property
    def typing_has_focus(self) -> bool:
        return any(widget.has_focus for widget in self._typing.values())

    def _typing_for(self, item: Item | None) -> Input | TextArea | None:
        if item is None or item.card.kind.typing is None:
            return None
        return self._typing.get(TYPING_IDS[item.card.kind.typing])

    def _typing_widget(self, name: str) -> Input | TextArea:
        widget = self._typing.get(name)
        if widget is None:
            widget = self._typing[name] = _make_typing_widget(name)
            widget.display = False
        return widget

    async def _ensure_typing(self, name: str) -> Input | TextArea:
        widget = self._typing_widget(name)
        if widget.parent is None and name not in self._mounting:
            self._mounting[name] = self.mount(widget, before="#answer")
        # Awaited once only: each await of a mount lays the whole screen out again.
        mounting = self._mounting.get(name)
        if mounting is not None:
            await mounting
            self._mounting.pop(name, None)
        return self._typing[name]

    async def mount_typing_widgets(self) -> None:
        """Mount what later cards will type into, so no key press waits for it."""
        for name in TYPING_IDS.values():
            await self._ensure_typing(name)

    async def typing_ready(self) -> Input | TextArea | None:
        widget = self.typing_widget
        if widget is not None:
            await self._ensure_typing(widget.id or "")
        return widget

    async def _mount_late(self, name: str) -> None:
        try:
            await self._ensure_typing(name)
        except MountError:
            # The drill was quit or moved on meanwhile: the card's view is gone with it.
            if self.is_attached:
                raise

    async def show(
        self,
        item: Item,
        *,
        repeat: bool = False,
        marks: CardMarks = NO_MARKS,
        titles: CardTitles | None = None,
    ) -> None:
        """Put ``item`` up, question side, its header showing its flag and mark (``marks``);
        a card of its deck it names by id shows as its question (``titles``: its deck's)."""
        self.item = item
        self.result = None
        self.revealed = False
        self._marks = marks
        self.sources_open = False
        self._answer_with = (None, None, None)
        s = item.sides()
        if titles is not None:
            from zerodrill.deck.mentions import name_cards_in

            s = name_cards_in(s, titles)
        self._sides = s
        kind = item.card.kind
        needed = TYPING_IDS[kind.typing] if kind.typing is not None else None
        if needed is not None:
            if self._typing_widget(needed).parent is None and needed not in self._mounting:
                # Before the warm-up made it: the box comes a frame after the card.
                self.call_after_refresh(self._mount_late, needed)
            else:
                await self._ensure_typing(needed)
        for name, widget in self._typing.items():
            widget.display = name == needed
            _clear(widget)
        self._cloze_answers = []
        if kind.typing is Typing.BLANKS and kind.cloze_field and item.ordinal is not None:
            self._cloze_answers = cloze.answers(item.card.fields[kind.cloze_field], item.ordinal)
            blanks = len(self._cloze_answers)
            self._typing[TYPING_IDS[Typing.BLANKS]].placeholder = (
                f"a: type the {blanks} missing parts, separated by commas; Enter to check"
                if blanks > 1
                else "a: type the missing text; Enter to check"
            )
        self._question = (parse(s.question), parse(s.quote) if s.quote else None)
        self._repeat = repeat

        question_side = self.query_one("#question", CardSide)
        question_side.show(self._question_build(item))
        question_side.display = True
        answer_side = self.query_one("#answer", CardSide)
        answer_side.show(None)
        answer_side.display = False
        self._plain_answer = None
        self.call_after_refresh(self._prepare_answer, item)

    def _question_build(self, item: Item) -> Build:
        question, quote = self._question
        repeat, marks = self._repeat, self._marks

        def build_question(styles: SideStyles) -> RenderableType:
            markdown = styles.markdown()
            parts: list[RenderableType] = [_head(item, repeat, marks, styles), Text()]
            if quote is not None:
                parts += [quoted(quote, markdown), Text()]
            return Group(*parts, render(question, markdown))

        return build_question

    def set_marks(self, marks: CardMarks) -> None:
        if self.item is None or marks == self._marks:
            return
        self._marks = marks
        self.query_one("#question", CardSide).show(self._question_build(self.item))
        # A cloze's answer side has the header too (it shows in place of the question).
        if self.item.card.kind.is_cloze:
            self._answer_again()

    def toggle_sources(self) -> bool:
        """Unfold the answer's sources one a line, or fold them again; whether unfolded now."""
        if self.item is None or not self.revealed or not self.item.card.refs:
            return False
        self.sources_open = not self.sources_open
        self._answer_again()
        return self.sources_open

    def _answer_again(self) -> None:
        if self.item is None or self._sides is None:
            return
        if self.revealed:
            self.query_one("#answer", CardSide).show(self._answer_build(*self._answer_with))
        else:
            self._plain_answer = None
            self.call_after_refresh(self._prepare_answer, self.item)

    def _prepare_answer(self, item: Item) -> None:
        # Run after the next refresh: by then the card may have moved on, or the drill ended.
        if item is not self.item or self.revealed or self._sides is None or not self.is_attached:
            return
        self._plain_answer = self._answer_build()
        self._draw_ahead()

    def on_resize(self) -> None:
        # The width it was drawn ahead at is gone (a resize, or not the card's last layout).
        if not self.revealed and self._plain_answer is not None:
            self._draw_ahead()

    def _draw_ahead(self) -> None:
        # The question's width: the scrolling area keeps room for its scrollbar.
        width = self.query_one("#question", CardSide).content_region.width
        if self._plain_answer is not None:
            self.query_one("#answer", CardSide).prepare(self._plain_answer, width)

    def reveal(self, name: Callable[[Grade], str] | None = None) -> Check | None:
        """Show the answer side; for a typed cloze answer, the check of it, whose verdict
        calls each grade by ``name`` (the grade bar's key and label)."""
        if self.item is None or self._sides is None or self.revealed:
            return self.result
        self.revealed = True
        typed, item = self.typed, self.item
        kind = item.card.kind
        if kind.is_cloze:
            # A cloze shows its text once: with the blank before, filled in after.
            self.query_one("#question").display = False
            field, ordinal = kind.cloze_field, item.ordinal
            if typed is not None and self._cloze_answers and field and ordinal is not None:
                # Imported here: not needed before the first reveal.
                from zerodrill.srs.answer_check import check_cloze

                self.result = check_cloze(typed, item.card.fields[field], ordinal)
        result = self.result
        yours = typed if kind.typing is Typing.FREE else None
        self._answer_with = (result, yours, name)
        if result is None and yours is None and self._plain_answer is not None:
            build_answer = self._plain_answer
        else:
            build_answer = self._answer_build(result, yours, name)

        for widget in self._typing.values():
            widget.display = False
        answer_side = self.query_one("#answer", CardSide)
        # The rule under the question; a revealed cloze shows no question to set apart.
        answer_side.set_class(not kind.is_cloze, "-below-question")
        answer_side.show(build_answer)
        answer_side.display = True
        return self.result

    def _answer_build(
        self,
        result: Check | None = None,
        yours: str | None = None,
        name: Callable[[Grade], str] | None = None,
    ) -> Build:
        """The answer side of the card on show, with the check of a typed answer (``result``)
        or what was typed beside the model answer (``yours``)."""
        item, s = self.item, self._sides
        assert item is not None and s is not None
        kind = item.card.kind
        answer = parse(s.answer)
        extra = parse(s.extra) if s.extra.strip() else None
        refs = item.card.refs
        repeat, marks, sources_open = self._repeat, self._marks, self.sources_open

        def build_answer(styles: SideStyles) -> RenderableType:
            markdown = styles.markdown()
            parts: list[RenderableType] = []
            if kind.is_cloze:
                parts += [_head(item, repeat, marks, styles), Text()]
            if result is not None:
                parts += [_check_lines(result, styles, name), Text()]
            model = render(answer, markdown)
            if yours is not None:
                parts.append(beside(yours, model, styles))
            else:
                parts.append(model)
            if extra is not None:
                parts += [Text(), Styled(render(extra, markdown), styles.muted)]
            if refs:
                parts += [Text(), _sources(refs, styles, full=sources_open)]
            return Group(*parts)

        return build_answer

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # By handler name rather than @on(Input.Submitted): that would import Input up front.
        if event.input.id == TYPING_IDS[Typing.BLANKS]:
            event.stop()
            self.post_message(self.AnswerSubmitted(self))

    def on_answer_area_submitted(self, event: AnswerArea.Submitted) -> None:
        event.stop()
        self.post_message(self.AnswerSubmitted(self))


def _make_typing_widget(name: str) -> Input | TextArea:
    # Imported here: TextArea is a large module, and the first card seldom needs it.
    if name == TYPING_IDS[Typing.BLANKS]:
        from textual.widgets import Input

        return Input(id=name, select_on_focus=False)
    from zerodrill.tui.widgets.answer_area import NEW_LINE_NAME, AnswerArea

    return AnswerArea(
        placeholder=(
            "Try answering first (optional): press a to type, Enter to see the answer "
            f"beside yours, {NEW_LINE_NAME} for a new line, Esc to stop typing"
        ),
        id=name,
        soft_wrap=True,
    )


# Told apart by Input, never TextArea: importing TextArea to ask would defeat its deferral.


def _text_in(widget: Input | TextArea) -> str:
    from textual.widgets import Input

    return widget.value if isinstance(widget, Input) else widget.text


def _clear(widget: Input | TextArea) -> None:
    # Only what holds text: setting a TextArea's text rebuilds its document, on every card.
    from textual.widgets import Input

    if isinstance(widget, Input):
        if widget.value:
            widget.value = ""
    elif widget.text:
        widget.text = ""


def _head(item: Item, repeat: bool, marks: CardMarks, styles: SideStyles) -> Text:
    label = item.card.kind.label
    head = Text.assemble((label, styles.muted + Style(bold=True)), "  ", (item.key, styles.muted))
    if marks.flag:
        colour = Style(color=flags.COLOURS[marks.flag], bold=True)
        head.append(f"  {flags.GLYPH} flagged {FLAGS[marks.flag]}", colour)
    if marks.marked:
        head.append(f"  {flags.MARK_GLYPH} marked", styles.number + Style(bold=True))
    if repeat:
        head.append("  ")
        head.append(" again ", Style(reverse=True))
    return head


def beside(typed: str | None, model: RenderableType, styles: SideStyles) -> Table:
    """What the learner typed and the model answer, side by side."""
    grid = Table.grid(expand=True, padding=(0, 2, 0, 0))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    title = styles.muted + Style(bold=True)
    grid.add_row(Text("Your answer", title), Text("Model answer", title))
    grid.add_row(Text(), Text())
    yours = Text(typed, styles.typed) if typed else Text("(answered out loud)", styles.muted)
    grid.add_row(yours, model)
    return grid


def _sources(refs: tuple[str, ...], styles: SideStyles, *, full: bool) -> RenderableType:
    """The card's sources, each label linked: the places they name folded into one line cut
    short (…), or, ``full``, one a line."""
    # Imported here: never needed for the first question.
    from zerodrill.deck.source_labels import sources

    found = sources(refs)
    title = styles.muted + Style(bold=True)
    if not full:
        places: dict[str, str | None] = {}
        for one in found:
            places.setdefault(one.place, one.url)
        line = Text("Sources", title, no_wrap=True, overflow="ellipsis")
        if len(found) > 1:
            # How many the list holds, however few of them the line has room for.
            line.append(f" ({len(found)})", title)
        for n, (place, url) in enumerate(places.items()):
            line.append(" · " if n else "  ", styles.muted)
            line.append(place, styles.accent + Style(link=url) if url is not None else None)
        return line
    lines = Table.grid(padding=(0, 1, 0, 0))
    lines.add_column(no_wrap=True)
    lines.add_column(ratio=1, overflow="ellipsis")
    for one in found:
        link = styles.accent + Style(link=one.url) if one.url is not None else None
        # The link on the label's characters only, not the blank after them.
        label = Text()
        label.append(one.label, link)
        lines.add_row(Text("•", styles.muted), label)
    return Group(Text("Sources", title), lines)


def _check_lines(result: Check, styles: SideStyles, name: Callable[[Grade], str] | None) -> Text:
    lines = Text()
    for part in result.parts:
        if part.right:
            lines.append("✔ ", styles.string)
        elif part.close:
            lines.append("≈ ", styles.number)
        elif part.almost:
            # A fail, as its grade is, but one letter or the case away: not the red of a miss.
            lines.append("✘ ", styles.number)
        else:
            lines.append("✘ ", styles.error)
        for ok, run in part.runs:
            lines.append(run, styles.right if ok else styles.wrong)
        if not part.right:
            if not part.runs:
                lines.append("(nothing)", styles.muted)
            lines.append("  →  ")
            lines.append(part.expected, Style(bold=True))
        if part.reason:
            lines.append(f"  ({part.reason})", styles.muted)
        lines.append("\n")
    lines.append(result.verdict() if name is None else result.verdict(name), styles.muted)
    return lines
