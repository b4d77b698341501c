"""One sitting of drill: today's queue worked through, card by card, with its undo stack.

The sitting owns its grades: each one is logged the moment it is given (:func:`record_grade`,
committed before the next card appears) and kept, by review id, on the sitting's undo stack.
Undo takes back only these, one at a time through :meth:`Store.log.undo`, so undo in one terminal
never takes back a grade given in another. Choosing another deck keeps the sitting: its day, its
grades and its undo stack.

The study day is fixed when the sitting starts: a sitting that runs past the rollover hour
still counts for the day it began on. The clock stamps each grade and times each answer.

No Textual here: the drill's screens see a sitting through :class:`zerodrill.tui.drill_session.
DrillSession`, and the tests drive this class directly.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from msgspec import Struct, structs

from zerodrill.deck.item_index import ItemIndex
from zerodrill.deck.model import Deck, Item
from zerodrill.srs.card_actions import NO_MARKS, Action, CardActionEvent, CardMarks
from zerodrill.srs.days import DEFAULT_ROLLOVER_HOUR, local_now, study_day
from zerodrill.srs.events import LoggedEvent
from zerodrill.srs.grades import DEFAULT_LAYOUT, to_grade
from zerodrill.srs.queue import (
    DEFAULT_NEW_LIMIT,
    Apart,
    Counts,
    TodayQueue,
    build_queue,
    items_of,
)
from zerodrill.srs.schedulers.protocol import GradeOutcome, Scheduler, When, outcomes
from zerodrill.srs.store import NotInEffect, Store
from zerodrill.srs.store.actions import NothingToUndo

if TYPE_CHECKING:
    from zerodrill.srs.interview_plan import Plan
    from zerodrill.srs.review_stats import Stats

#: Longer than this on one card is a coffee break, not answering time (Anki caps at 60 s).
MAX_ANSWER_MS = 60_000


def answer_ms(shown_at: datetime, now: datetime) -> int:
    """How long a card was answered for, as the log keeps it: capped at :data:`MAX_ANSWER_MS`."""
    return min(MAX_ANSWER_MS, max(0, int((now - shown_at).total_seconds() * 1000)))


#: A learning step: a card the scheduler brings back at a set moment the same day (SM-2: a
#: fail, 10 minutes on) comes back at that moment or once this many other cards were graded
#: since, whichever comes first; before the remaining new cards, so it is seen again while
#: the answer is fresh.
LEARNING_STEP_CARDS = 3


class Summary(Struct, frozen=True):
    """One sitting, for the summary screen and the line printed on quitting."""

    #: Grades given (same-day repeats included, undone ones not).
    reviews: int
    #: Different cards graded.
    cards: int
    grades: Mapping[int, int]
    seconds: float
    #: Reviews due tomorrow (including any due today that were left undone), over every deck
    #: the drill was started with, whichever one was drilled last: ``zerodrill stats`` on those
    #: decks counts the same cards.
    due_tomorrow: int
    #: The interview date planned for, if it is today or ahead; None otherwise.
    interview: date | None = None
    #: With :attr:`interview`: the new cards tomorrow brings (the plan's, or the daily limit).
    new_tomorrow: int = 0
    #: The study day of the sitting.
    day: date | None = None


class Outlook(Struct, frozen=True):
    """Why no card is on show, and what comes next: the "nothing due" screen says it."""

    #: Study items in the decks drilled.
    cards: int
    #: Of those, the ones never studied (and not graded today).
    new_waiting: int
    #: The sitting's daily limit on new cards (``--new``).
    new_limit: int
    #: New cards introduced today, in any deck: they count against the limit.
    introduced: int
    #: When the next scheduled card of these decks falls due after today; None if none.
    next_review: datetime | None
    #: When the next study day starts (new cards come again then).
    next_day: datetime


class DeckCount(Struct, frozen=True):
    #: None for "all decks together".
    deck_id: str | None
    title: str
    due: int
    new: int
    #: Cards of the deck suspended, or buried today: in neither figure above.
    put_aside: int = 0


def record_grade(
    store: Store,
    key: str,
    quality: int,
    *,
    day: date,
    at: datetime,
    answer_ms: int | None = None,
    typed: str | None = None,
    buttons: int = DEFAULT_LAYOUT,
) -> LoggedEvent:
    """Grade ``key``, pressed on the layout of ``buttons``, and log it; returns the grade
    logged. On disk when this returns.

    Whether it moves the schedule or is a same-day repeat is the scheduler's to say, from
    the log (a grade given today in any terminal counts), never what a sitting remembers.
    """
    return store.log.grade(
        key, quality, day=day, at=at, answer_ms=answer_ms, typed=typed, buttons=buttons
    )


def choices(
    store: Store, key: str, *, day: date, at: datetime, buttons: int = DEFAULT_LAYOUT
) -> tuple[GradeOutcome, ...]:
    """What each grade 0-5 would do to ``key`` if given at ``at`` on study day ``day``,
    pressed on the layout of ``buttons``."""
    with store.snapshot():
        return outcomes(store.scheduler, store.schedule.state(key), When(_aware(at), day), buttons)


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.astimezone()


class Session:
    """A sitting over ``decks`` (or the one ``deck_id`` names), keeping its grades in ``store``.

    :attr:`current` is the card to show; :meth:`grade` grades it and moves on; :meth:`undo`
    takes back the sitting's last grade and shows that card again.
    """

    def __init__(
        self,
        decks: Sequence[Deck],
        store: Store,
        *,
        clock: Callable[[], datetime] = local_now,
        new_limit: int = DEFAULT_NEW_LIMIT,
        deck_id: str | None = None,
        rollover_hour: int = DEFAULT_ROLLOVER_HOUR,
        interview: date | None = None,
    ) -> None:
        self._all_decks = tuple(decks)
        #: The interview date planned for (:mod:`zerodrill.srs.interview_plan`), or None. The
        #: store's scheduler caps intervals for it (:func:`zerodrill.srs.settings.
        #: chosen_scheduler`).
        self.interview = interview
        self._plan: Plan | None = None
        self._store = store
        self._clock = clock
        self._new_limit = new_limit
        self._rollover_hour = rollover_hour
        self._started = clock()
        self.day = study_day(self._started, rollover_hour)
        # The sitting's grades still in effect, oldest first: the undo stack, and what the
        # summary counts.
        self._given: list[LoggedEvent] = []
        # The sitting's card actions, each with how many grades came before it: undo takes
        # back whichever of the two came last.
        self._actions: list[tuple[int, CardActionEvent]] = []
        self._current: Item | None = None
        #: Every card's marks as the log left them when last read (the drill shows the flag
        #: and mark of each card it puts up); None once an action here may have changed them.
        self._marks: dict[str, CardMarks] | None = None
        self.select_deck(deck_id)

    def select_deck(self, deck_id: str | None) -> None:
        """Drill only the deck ``deck_id`` from now on (None: all of them again)."""
        #: The deck drilled, or None for all of them.
        self.deck_id = deck_id
        self._decks = tuple(d for d in self._all_decks if deck_id is None or d.id == deck_id)
        #: The deck's title, or "All decks" when several are drilled together.
        self.title = self._decks[0].title if len(self._decks) == 1 else "All decks"
        self._by_key = ItemIndex(self._decks)
        # A card undone is taken out of its line and shown first.
        self._front: Item | None = None
        self._reload()
        self._advance()

    def replace_decks(self, decks: Sequence[Deck]) -> None:
        """Drill ``decks`` from now on in place of the ones given (a deck file edited during
        the sitting), keeping the sitting's grades and, if it is still there, the card on show.
        """
        current: Item | None = self._current
        self._all_decks = tuple(decks)
        known = {d.id for d in self._all_decks}
        self.select_deck(self.deck_id if self.deck_id in known else None)
        if current is not None:
            item = self._by_key.get(current.key)
            if item is not None:
                # The same card, as the file now has it, still first.
                self._take(item)
                self._front = item
                self._current = item

    def use_scheduler(self, scheduler: Scheduler[Any]) -> None:
        """Schedule with ``scheduler`` from now on. Every card is derived again from its events
        (the store rebuilds its cache at the next read: nothing is lost, and switching back
        gives the old schedule exactly) and today's queue is built again; the sitting keeps
        its day, its grades and its undo stack. If the cache cannot be rebuilt (a locked
        database), the store error is raised and the old scheduler stays in use."""
        previous, self._store.scheduler = self._store.scheduler, scheduler
        try:
            self.select_deck(self.deck_id)
        except BaseException:
            self._store.scheduler = previous
            raise

    def use_interview(self, interview: date | None, scheduler: Scheduler[Any]) -> None:
        """Plan for ``interview`` (None: for none) from now on, the store scheduling with
        ``scheduler`` (capped for it): as :meth:`use_scheduler`, the queue built again."""
        previous = self.interview
        self.interview = interview
        try:
            self.use_scheduler(scheduler)
        except BaseException:
            self.interview = previous
            raise

    @property
    def plan(self) -> Plan | None:
        """The plan for the interview date on the sitting's day; None without one ahead."""
        return self._plan

    @property
    def new_limit(self) -> int:
        """New cards a day: the plan's while one is in force, else the sitting's ``--new``."""
        return self._plan.new_per_day if self._plan is not None else self._new_limit

    def _plan_for(self, day: date, marks: Mapping[str, CardMarks]) -> Plan | None:
        if self.interview is None or day >= self.interview:
            return None
        from zerodrill.srs.interview_plan import plan_for

        keys = self._by_key if self.deck_id is None else ItemIndex(self._all_decks)
        return plan_for(
            keys, self._store, day, self.interview, new_limit=self._new_limit, marks=marks
        )

    def _queue(self, items: Mapping[str, Item] | Sequence[Item]) -> TodayQueue:
        """Today's queue over ``items``, with the day's new cards and sibling rule."""
        apart = Apart.ALL
        if self._plan is not None:
            from zerodrill.srs.interview_plan import queue_apart

            apart = queue_apart(self._plan)
        return build_queue(items, self._store, self.day, new_limit=self.new_limit, apart=apart)

    def _reload(self) -> None:
        # Suspended cards, and cards buried today, are kept out of every line.
        marks = self._marks = self._store.actions.marks()
        self._plan = self._plan_for(self.day, marks)
        by_key = self._by_key.without(k for k, m in marks.items() if m.hidden_on(self.day))
        queue = self._queue(by_key)
        # Keys: the items of due cards are made as the sitting reaches them.
        self._reviews = deque(queue.review_keys)
        self._new = deque(queue.new)
        self._repeats = deque(queue.repeats)
        self._graded = set(queue.graded_today)
        # Failed cards waiting for their learning step: each one's grade count and time at
        # which it comes forward. The count is of grades given here, starting from what the
        # log says was graded since the fail.
        self._ticks = 0
        self._failed = {
            key: (LEARNING_STEP_CARDS - fail.since, fail.due) for key, fail in queue.failed.items()
        }

    def _advance(self) -> None:
        if self._store.changed_elsewhere():
            # Another terminal graded or undid meanwhile: what is due, new or a repeat now is
            # what the log says, not what this sitting read when it started.
            front = self._front
            self._reload()
            if front is not None:
                self._take(front)
                self._front = front
        self._current = self._next()
        self._shown_at = self._clock()

    def _next(self) -> Item | None:
        if self._front is not None:
            return self._front
        if self._failed:
            now = self._clock()
            for item in self._repeats:
                step = self._failed.get(item.key)
                if step is not None and (self._ticks >= step[0] or now >= step[1]):
                    return item
        if self._reviews:
            return self._by_key[self._reviews[0]]
        for line in (self._new, self._repeats):
            if line:
                return line[0]
        return None

    def _take(self, item: Item) -> None:
        """Remove ``item`` from wherever it waits."""
        if self._front is not None and self._front.key == item.key:
            self._front = None
        with suppress(ValueError):
            self._reviews.remove(item.key)
        for line in (self._new, self._repeats):
            for queued in line:
                if queued.key == item.key:
                    line.remove(queued)
                    break

    # -- the card on show -------------------------------------------------------------------

    @property
    def current(self) -> Item | None:
        """The card to show; None when today's work is done."""
        return self._current

    @property
    def is_repeat(self) -> bool:
        """The current card was graded today already, in this terminal or another: it is back
        for another go (under SM-2 a grade now moves no schedule; under FSRS it is a
        short-term review)."""
        if self._current is None:
            return False
        last = self._store.schedule.last_day(self._current.key)
        return last is not None and last >= self.day

    @property
    def can_undo(self) -> bool:
        return bool(self._given) or bool(self._actions)

    # -- what Anki's reviewer does besides grading (card_actions) ---------------------------

    def act(self, action: Action, *, flag: int = 0) -> CardActionEvent:
        """Log ``action`` on the current card. Suspend and bury take it out of the sitting
        (the next card comes up); flag and mark leave it on show. Undone by :meth:`undo`
        (the last thing done, grade or action, is the one undone)."""
        item = self._current
        if item is None:
            raise RuntimeError("no card to act on")
        event = self._store.actions.record(
            item.key, action, at=self._clock(), day=self.day, flag=flag
        )
        self._marks = None
        self._actions.append((len(self._given), event))
        if action in (Action.SUSPEND, Action.BURY):
            was_new = (
                item.key not in self._graded and self._store.schedule.state(item.key).due is None
            )
            self._take(item)
            self._failed.pop(item.key, None)
            if was_new:
                # A new card put aside was never introduced: its place in today's limit goes
                # to the next new card, as the deck picker counts.
                self._reload()
            self._advance()
        return event

    def marks(self) -> CardMarks:
        """The current card's marks (flag, marked)."""
        if self._current is None:
            return NO_MARKS
        # Read once per change, not per card: replaying the whole log is the cost of a read.
        if self._marks is None:
            self._marks = self._store.actions.marks()
        return self._marks.get(self._current.key, NO_MARKS)

    def unsuspend_all(self) -> int:
        """Unsuspend every suspended card of the decks drilled; how many. Each is an event,
        as the CLI's ``zerodrill unsuspend`` makes."""
        suspended = [
            key
            for key, m in self._store.actions.marks().items()
            if m.suspended and key in self._by_key
        ]
        now = self._clock()
        with self._store.transaction():
            for key in suspended:
                self._store.actions.record(key, Action.UNSUSPEND, at=now, day=self.day)
        if suspended:
            self._reload()
            if self._current is None:
                self._advance()
        return len(suspended)

    @property
    def next_undo(self) -> str | None:
        """What :meth:`undo` would take back: "grade", an action's name, or None."""
        if self._actions and self._actions[-1][0] == len(self._given):
            return self._actions[-1][1].action.value
        return "grade" if self._given else None

    def _undo_action(self) -> Item | None:
        """Take back the sitting's last card action; a suspended or buried card comes back."""
        _, event = self._actions.pop()
        self._marks = None
        try:
            self._store.actions.undo(event.identity, at=self._clock())
        except NothingToUndo:
            return None
        if event.action not in (Action.SUSPEND, Action.BURY):
            return self._current
        self._front = None
        self._reload()
        item = self._by_key.get(event.key)
        if item is not None:
            self._take(item)
            self._front = item
        self._advance()
        return item

    @property
    def done(self) -> int:
        """Grades given in this sitting (repeats included, undone ones not)."""
        return len(self._given)

    def remaining(self) -> Counts:
        new, repeats, reviews = len(self._new), len(self._repeats), len(self._reviews)
        if self._front is not None:
            if self._front.key in self._graded:
                repeats += 1
            elif self._store.schedule.state(self._front.key).due is None:
                new += 1
            else:
                reviews += 1
        return Counts(new=new, repeats=repeats, reviews=reviews)

    def choices(self, buttons: int = DEFAULT_LAYOUT) -> Sequence[GradeOutcome]:
        """What each grade 0-5 would do to the current card, pressed on the layout of
        ``buttons``."""
        if self._current is None:
            return ()
        return choices(
            self._store, self._current.key, day=self.day, at=self._clock(), buttons=buttons
        )

    def grade(
        self, quality: int, *, typed: str | None = None, buttons: int = DEFAULT_LAYOUT
    ) -> None:
        """Grade the current card, pressed on the layout of ``buttons`` (committed when this
        returns), and move to the next one."""
        item = self._current
        if item is None:
            raise RuntimeError("no card to grade")
        grade = to_grade(quality)
        now = self._clock()
        review = record_grade(
            self._store,
            item.key,
            grade,
            day=self.day,
            at=now,
            answer_ms=answer_ms(self._shown_at, now),
            typed=typed,
            buttons=buttons,
        )
        self._given.append(review)
        self._take(item)
        self._graded.add(item.key)
        self._ticks += 1
        self._failed.pop(item.key, None)
        # The scheduler says whether, and when, the card comes back today.
        state = self._store.schedule.state(item.key)
        if state.again_on == self.day:
            self._repeats.append(item)
            if state.step_due is not None:
                self._failed[item.key] = (self._ticks + LEARNING_STEP_CARDS, state.step_due)
        self._advance()

    def undo(self) -> Item | None:
        """Take back the sitting's last grade still in effect; its card, if in the decks
        drilled now, becomes the current one again. None when there is nothing to undo.

        :class:`UndoConflict` when another terminal has graded that card since: that grade can
        never be undone, so it leaves the stack and the next undo goes on to the one before.
        """
        if self._actions and self._actions[-1][0] == len(self._given):
            # A card action came after the last grade: it is the one undone.
            return self._undo_action()
        try:
            while self._given:
                # Off the stack whatever happens: undone here, undone elsewhere already, or
                # graded again elsewhere (then it can never be undone).
                last = self._given.pop()
                try:
                    undo = self._store.log.undo(last.id, at=self._clock())
                except NotInEffect:
                    continue  # on to the one before
                self._front = None
                self._reload()
                item = self._by_key.get(undo.key)
                if item is not None:
                    self._take(item)
                    self._front = item
                return item
            return None
        finally:
            self._advance()

    # -- the sitting as a whole -------------------------------------------------------------

    def summary(self) -> Summary:
        from zerodrill.srs.review_stats import compute_stats

        # Every deck the drill was started with, not only the one drilled last: the count
        # must not depend on which deck was picked before quitting.
        stats = compute_stats(self._all_decks, self._store, self.day, interview=self.interview)
        grades = Counter(int(review.grade) for review in self._given if review.grade is not None)
        interview = self.interview if self.interview and self.interview >= self.day else None
        new_tomorrow = 0
        if interview is not None:
            # What tomorrow's sitting will bring: the plan worked out for tomorrow, from what
            # is left unseen now.
            marks = self._store.actions.marks()
            tomorrow = self._plan_for(self.day + timedelta(days=1), marks)
            limit = tomorrow.new_per_day if tomorrow is not None else self._new_limit
            schedule = self._store.schedule.due_dates()
            unseen = sum(
                1
                for key in ItemIndex(self._all_decks)
                if key not in schedule and not marks.get(key, NO_MARKS).suspended
            )
            new_tomorrow = min(limit, unseen)
        return Summary(
            reviews=len(self._given),
            cards=len({review.key for review in self._given}),
            grades=dict(grades),
            seconds=(self._clock() - self._started).total_seconds(),
            due_tomorrow=stats.due_today - stats.again + stats.due_tomorrow,
            interview=interview,
            new_tomorrow=new_tomorrow,
            day=self.day,
        )

    def outlook(self) -> Outlook:
        """What the decks drilled hold beyond today's queue (see :class:`Outlook`)."""
        schedule = self._store.schedule.due_dates()
        next_review = next(
            (due for key, due in schedule.items() if due > self.day and key in self._by_key), None
        )
        new_waiting = sum(
            1 for key in self._by_key if key not in schedule and key not in self._graded
        )
        queue = build_queue({}, self._store, self.day, new_limit=0)
        return Outlook(
            cards=len(self._by_key),
            new_waiting=new_waiting,
            new_limit=self.new_limit,
            introduced=queue.introduced,
            next_review=None if next_review is None else self._day_start(next_review),
            next_day=self._day_start(self.day + timedelta(days=1)),
        )

    def _day_start(self, day: date) -> datetime:
        # A study day starts at the rollover hour, on the local clock.
        return datetime.combine(day, time(self._rollover_hour)).astimezone()

    def stats(self) -> Stats:
        # Imported when asked for: the first card does not wait for it.
        from zerodrill.srs.review_stats import compute_stats

        stats = compute_stats(
            self._decks,
            self._store,
            self.day,
            at=self._clock(),
            interview=self.interview,
            new_limit=self._new_limit,
        )
        # The plan is the sitting's, over every deck (the daily limit is one over them all),
        # whichever deck is drilled now.
        return structs.replace(stats, plan=self._plan)

    def deck_counts(self) -> list[DeckCount]:
        rows = [self._count(deck.id, deck.title, (deck,)) for deck in self._all_decks]
        if len(rows) > 1:
            rows.insert(0, self._count(None, "All decks", self._all_decks))
        return rows

    def _count(self, deck_id: str | None, title: str, decks: Sequence[Deck]) -> DeckCount:
        # The same queue as a sitting over ``decks`` would build: the daily limit on new cards
        # is one over every deck, so no row offers more than drilling it would give.
        marks = self._store.actions.marks()
        items = items_of(decks)
        shown = [i for i in items if not marks.get(i.key, NO_MARKS).hidden_on(self.day)]
        q = self._queue(shown)
        due = len(q.review_keys) + len(q.repeats)
        return DeckCount(deck_id, title, due, len(q.new), len(items) - len(shown))
