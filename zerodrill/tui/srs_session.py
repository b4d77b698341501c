"""A drill session over ``zerodrill.srs``: the one implementation of :class:`DrillSession`.

The store commits each grade before :meth:`SrsDrillSession.grade` returns, so whatever the
screen shows next, the grade before it is already safe on disk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from zerodrill.deck.model import Deck, Item
from zerodrill.srs import sm2
from zerodrill.srs.days import DEFAULT_ROLLOVER_HOUR, study_day
from zerodrill.srs.store import Store
from zerodrill.tui import fmt
from zerodrill.tui.session import DeckCount, GradeChoice, Remaining, StatsView, Summary

#: A card graded below 4 comes back after this many other cards (sooner if fewer are left):
#: long enough that the answer is not still in short-term memory.
REPEAT_GAP = 5

NEW, REVIEW, REPEAT = "new", "review", "repeat"


@dataclass(frozen=True, slots=True)
class _Entry:
    item: Item
    kind: str


class SrsDrillSession:
    def __init__(
        self,
        decks: Sequence[Deck],
        store: Store,
        *,
        clock: Callable[[], datetime],
        new_limit: int = 20,
        deck_id: str | None = None,
        rollover_hour: int = DEFAULT_ROLLOVER_HOUR,
    ) -> None:
        self.all_decks = tuple(decks)
        self.store = store
        self.clock = clock
        self.new_limit = new_limit
        self.deck_id = deck_id
        self.rollover_hour = rollover_hour
        self.decks = tuple(d for d in decks if deck_id is None or d.id == deck_id)
        if len(self.decks) == 1:
            self.title = self.decks[0].title
        else:
            self.title = "All decks"
        self._items = {item.key: item for deck in self.decks for item in deck.items()}
        self._started = clock()
        self.day = study_day(self._started, rollover_hour)
        self._queue: list[_Entry] = self._build_queue()
        self._shown_at = self._started
        #: (queue before the grade, what was graded, the grade) for each grade still undoable.
        self._undo: list[tuple[list[_Entry], _Entry, int]] = []
        self._grades: Counter[int] = Counter()
        self._seen: Counter[str] = Counter()

    # -- the queue --------------------------------------------------------------------------

    def _build_queue(self) -> list[_Entry]:
        """Due reviews (most overdue first), then new cards up to the daily limit, then the
        cards graded below 4 earlier today that have not reached 4 since."""
        today = self.store.reviews_on(self.day)
        touched_cards = {self._card_key(r.key) for r in today}
        last_grade: dict[str, int] = {}
        introduced = 0
        for r in today:
            if r.grade is not None:
                last_grade[r.key] = int(r.grade)
            introduced += r.introduced
        queue: list[_Entry] = []
        planned_cards: set[str] = set()
        for key in self.store.due_states(self.day):
            item = self._items.get(key)
            card = self._card_key(key)
            # Cloze siblings are kept apart: seeing c1 gives away c2 for the day.
            if item is None or card in planned_cards or card in touched_cards:
                continue
            planned_cards.add(card)
            queue.append(_Entry(item, REVIEW))
        allowance = max(0, self.new_limit - introduced)
        if allowance:
            known = self.store.known_keys()
            for key, item in self._items.items():
                if allowance == 0:
                    break
                card = self._card_key(key)
                if key in known or card in planned_cards or card in touched_cards:
                    continue
                planned_cards.add(card)
                queue.append(_Entry(item, NEW))
                allowance -= 1
        for key, grade in last_grade.items():
            if grade < sm2.REPEAT_BELOW and key in self._items:
                queue.append(_Entry(self._items[key], REPEAT))
        return queue

    @staticmethod
    def _card_key(key: str) -> str:
        return key.partition("#")[0]

    # -- DrillSession ---------------------------------------------------------------------

    @property
    def current(self) -> Item | None:
        return self._queue[0].item if self._queue else None

    @property
    def is_repeat(self) -> bool:
        return bool(self._queue) and self._queue[0].kind == REPEAT

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def done(self) -> int:
        return sum(self._grades.values())

    def remaining(self) -> Remaining:
        kinds = Counter(e.kind for e in self._queue)
        return Remaining(kinds[NEW], kinds[REPEAT], kinds[REVIEW])

    def choices(self) -> list[GradeChoice]:
        if not self._queue:
            return []
        if self.is_repeat:
            return [
                GradeChoice(g, "↻ again" if g < sm2.REPEAT_BELOW else "✔ done", g < sm2.REPEAT_BELOW)
                for g in range(6)
            ]
        state = self.store.state(self._queue[0].item.key)
        out = []
        for g in range(6):
            again = g < sm2.REPEAT_BELOW
            label = fmt.interval(sm2.next_interval(state, g))
            out.append(GradeChoice(g, f"{label} ↻" if again else label, again))
        return out

    def grade(self, quality: int, *, typed: str | None = None) -> None:
        if not self._queue:
            raise RuntimeError("no card to grade")
        entry = self._queue[0]
        now = self.clock()
        answer_ms = max(0, int((now - self._shown_at).total_seconds() * 1000))
        self.store.record(
            entry.item.key,
            quality,
            now=now,
            day=self.day,
            answer_ms=answer_ms,
            typed=typed,
            repeat=entry.kind == REPEAT,
        )
        before = list(self._queue)
        rest = self._queue[1:]
        if quality < sm2.REPEAT_BELOW:
            rest.insert(min(REPEAT_GAP, len(rest)), _Entry(entry.item, REPEAT))
        self._queue = rest
        self._undo.append((before, entry, quality))
        self._grades[quality] += 1
        self._seen[entry.item.key] += 1
        self._shown_at = now

    def undo(self) -> Item | None:
        if not self._undo:
            return None
        before, entry, quality = self._undo.pop()
        self.store.undo_last(now=self.clock())
        self._queue = before
        # The session's figures follow the log: an undone grade no longer counts.
        self._grades[quality] -= 1
        self._seen[entry.item.key] -= 1
        self._shown_at = self.clock()
        return entry.item

    def summary(self) -> Summary:
        seconds = (self.clock() - self._started).total_seconds()
        tomorrow = self.day + timedelta(days=1)
        due = self.store.due_dates(tomorrow)
        return Summary(
            reviews=self.done,
            cards=sum(1 for n in self._seen.values() if n > 0),
            grades={g: n for g, n in self._grades.items() if n > 0},
            seconds=seconds,
            due_tomorrow=sum(1 for key in due if key in self._items),
        )

    def next_due(self) -> datetime | None:
        if not self._items:
            return None
        known = self.store.known_keys()
        if any(key not in known for key in self._items):
            return self._day_start(self.day + timedelta(days=1))
        day = self.store.next_due_after(self.day, self._items.keys())
        return None if day is None else self._day_start(day)

    def _day_start(self, day: date) -> datetime:
        return datetime.combine(day, time(self.rollover_hour)).astimezone()

    def stats(self) -> StatsView:
        states = self.store.states(self._items.keys())
        tomorrow = self.day + timedelta(days=1)
        forecast = [0] * 30
        for state in states.values():
            assert state.due is not None
            offset = max(0, (state.due - self.day).days)
            if offset < 30:
                forecast[offset] += 1
        counts = self.store.review_counts(self.day)
        ids = {d.id for d in self.decks}
        mine = [c for deck, c in counts.items() if deck in ids]
        graded = sum(c.recall_graded for c in mine)
        return StatsView(
            cards=len(self._items),
            known=len(states),
            new=len(self._items) - len(states),
            due_today=forecast[0],
            due_tomorrow=sum(1 for s in states.values() if s.due == tomorrow),
            reviews=sum(c.reviews for c in mine),
            reviews_today=sum(c.reviews_today for c in mine),
            retention=(sum(c.recall_passed for c in mine) / graded) if graded else None,
            forecast=forecast,
            today=self.day,
        )

    def deck_counts(self) -> list[DeckCount]:
        rows = []
        for deck in self.all_decks:
            s = self.narrowed(deck.id)
            r = s.remaining()
            rows.append(DeckCount(deck.id, deck.title, r.reviews + r.repeats, r.new))
        if len(rows) > 1:
            s = self.narrowed(None)
            r = s.remaining()
            rows.insert(0, DeckCount(None, "All decks", r.reviews + r.repeats, r.new))
        return rows

    def narrowed(self, deck_id: str | None) -> SrsDrillSession:
        return SrsDrillSession(
            self.all_decks,
            self.store,
            clock=self.clock,
            new_limit=self.new_limit,
            deck_id=deck_id,
            rollover_hour=self.rollover_hour,
        )
