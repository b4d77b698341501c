"""Everything ``zerodrill anki sync`` reads from or writes to the review store.

The rest of the package sees only the values defined here (:class:`Answer`,
:class:`CardHistory`), never the store's own types, so a change of the store's API is a
change of this module alone:

- the events of the cards something moved for, zerodrill's and Anki's: :func:`log_events`
  (those of the cards likely to move read ahead: :func:`read_ahead`);
  Anki's answers the store holds, by number: :func:`anki_known`;
- Anki's reviews, without the rows zerodrill wrote: :func:`from_anki`; those dated more than
  a day ahead held back: :func:`held_back`;
- Anki's reviews added as events, idempotently, with the cards :func:`derive` replayed
  handed to the store (it replays none twice): :func:`add_anki_reviews`;
- the cards something moved for since the last sync, read as (time, grade) only:
  :func:`touched`; every card's schedule as the store's cache holds it: :func:`cached`;
- each card's schedule derived from all events, with the answers in effect and what each
  did, for Anki's revlog and card columns: :func:`derive`;
- the card actions (suspend, bury, flag, mark), those brought back from Anki added, and the
  record of the marks a run left in a collection: :func:`log_actions`,
  :func:`add_anki_actions`, :func:`marks_record`, :func:`keep_marks_record`;
- what today's queue in the drill is built from once the run's events are in:
  :func:`drill_day`;
- the learner's FSRS made with the model of Anki's preset, kept as the learner's, and the
  one line said once where only one side is on FSRS: :func:`one_model`, :func:`keep_model`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime
from heapq import merge
from itertools import chain, filterfalse
from operator import attrgetter
from typing import Any

from msgspec import Struct

from zerodrill.anki_sync import revlog
from zerodrill.anki_sync.beside import Beside
from zerodrill.anki_sync.preset import Preset
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.anki_import import AnkiReviews
from zerodrill.srs.card_actions import SCHEDULE_ACTIONS, CardActionEvent
from zerodrill.srs.events import ReviewEvent, time_order
from zerodrill.srs.grades import Grade
from zerodrill.srs.projections import Projection, schedule
from zerodrill.srs.queue import DEFAULT_NEW_LIMIT, Apart
from zerodrill.srs.schedulers import (
    AnkiCard,
    AnkiDecision,
    CardState,
    Effect,
    Option,
    Phase,
    Scheduler,
    When,
    effect_of,
    scheduler_named,
)
from zerodrill.srs.schedulers.protocol import answerer, by_hand
from zerodrill.srs.store import Replayed, Store
from zerodrill.words import plural

#: An event as the store gives it (its type is the store's business): a grade, an undo, or
#: a change made by hand in Anki (a due date set, a Forget), which moves a schedule too.
Event = ReviewEvent | CardActionEvent


class Answer(Struct, frozen=True, gc=False):
    """One grade in effect, as Anki's revlog records an answer. Untracked by the garbage
    collector, as the states a replay makes are (:class:`~zerodrill.srs.schedulers.sm2.
    Sm2Card`): a value no reference cycle can pass through, one for every grade."""

    key: str
    grade: Grade
    at: datetime
    answer_ms: int | None
    #: Given in Anki (True) or in zerodrill on any machine (False).
    from_anki: bool
    #: Its type in Anki's revlog, as Anki would log it: :data:`.revlog.LEARN` for the card's
    #: first grade (it was new) and the others of that study day, :data:`.revlog.REVIEW` for a
    #: scheduled review, passed or failed, :data:`.revlog.RELEARN` for another grade of a later
    #: day the card was graded on already (Anki's statistics read reviews by it).
    kind: int
    #: The interval (days) before and after it, and the ease after it (Anki's permille; 0
    #: for an answer given in Anki, whose row Anki wrote: worked out for the rows zerodrill
    #: writes only, as 10,000 of bench_anki_sync.py's 20,000 grades are Anki's).
    last_ivl: int
    ivl: int
    factor: int
    #: Given in Anki with Anki's decision, which the replay took (answers logged before
    #: decisions were kept carry none, and are scheduled as zerodrill's).
    anki_decided: bool = False


class CardHistory(Struct, frozen=True):
    """One card as all its events make it."""

    key: str
    #: What the scheduler derives: None while the card is new.
    due: date | None
    interval: int
    factor: int
    lapses: int
    #: The grades in effect, oldest first.
    answers: tuple[Answer, ...]
    #: The whole state as it reads in Anki (FSRS's memory state included); None when new.
    anki: AnkiCard | None = None
    #: The card's latest event in effect is a change made by hand in Anki (Set Due Date,
    #: Forget): its schedule is Anki's, as set there.
    set_in_anki: bool = False
    #: The replay as the store's cache takes it (:func:`add_anki_reviews`), so that it need
    #: not replay the card again.
    replayed: Replayed | None = None
    #: The study day a learning step brings the card back on, and the moment (the latest
    #: grade's, for a step after the day's other cards); None when it waits for :attr:`due`.
    again_on: date | None = None
    again_at: datetime | None = None
    #: That step is a known card's, failed (Anki's relearning).
    relearning: bool = False
    #: The decision of the card's latest event in effect where Anki made it (an answer or a
    #: change by hand given there), and that event's revlog id: Anki's card row may have lost
    #: it (:func:`zerodrill.srs.anki_import.left_as`), and is then written as it decided.
    decided: AnkiDecision | None = None
    decided_id: int = 0

    @property
    def anki_decides(self) -> bool:
        """The card's latest event in effect was an answer given in Anki, which decided its
        schedule, or a change made by hand there."""
        return self.set_in_anki or (bool(self.answers) and self.answers[-1].anki_decided)

    def not_from_anki(self) -> list[Answer]:
        """The answers given in zerodrill (on any machine), not in Anki."""
        return [a for a in self.answers if not a.from_anki]


class ReadAhead(Struct, frozen=True):
    """The store's grades and undos of the cards ``keys``, read before the run knows which
    cards it replays (beside Anki's first server sync, whose wait leaves Python's lock free:
    bench_anki_sync.py's two-way sync, the goal of 3x Anki's own syncs), and where the log
    ended then: a card's are these and those logged after (:meth:`.EventLog.events_of`)."""

    keys: frozenset[str]
    events: list[ReviewEvent]
    last_id: int


def read_ahead(store: Store, keys: Collection[str]) -> ReadAhead:
    """The :class:`ReadAhead` of ``keys`` (those with events the media lacked: the cards the
    run will most likely replay)."""
    with store.snapshot():
        return ReadAhead(frozenset(keys), store.log.events_of(keys), store.log.last_id())


def log_events(
    store: Store | None, keys: Collection[str], ahead: ReadAhead | None = None
) -> list[Event]:
    """The store's events of the cards ``keys`` that move a schedule (grades, changes made by
    hand in Anki), undos included (none without a store); those of the cards ``ahead`` read
    taken from it, and only what was logged since read."""
    if store is None or not keys:
        return []
    wanted = set(keys)
    by_hand = [e for e in store.log.project(_BY_HAND) if e.key in wanted]
    if ahead is None:
        return [*store.log.events_of(wanted), *by_hand]
    had = wanted & ahead.keys
    read = [e for e in ahead.events if e.key in had]
    since = store.log.events_of(had, after=ahead.last_id)
    return [*read, *since, *store.log.events_of(wanted - had), *by_hand]


#: The changes made by hand in Anki the store holds, and the undos of actions.
_BY_HAND = Projection("by hand", "by-hand", SCHEDULE_ACTIONS, False, list)


def anki_known(store: Store | None) -> set[tuple[str, int]]:
    """The identities of the events from Anki (answers, changes made by hand) that the store
    holds."""
    return {(ANKI_ORIGIN, n) for n in store.log.numbers(ANKI_ORIGIN)} if store else set()


def log_actions(store: Store | None) -> list[CardActionEvent]:
    """Every card action in the store, undos included (none without a store)."""
    return store.actions.events() if store is not None else []


#: The store setting holding the record of the marks a run left in one collection.
_RECORD_SETTING = "anki-sync-marks "


def marks_record(store: Store | None, collection: str) -> str | None:
    """The record of the marks the last run left in ``collection`` (an id naming it); None
    if there is none."""
    return store.settings.get(_RECORD_SETTING + collection) if store is not None else None


def keep_marks_record(store: Store, collection: str, record: str) -> None:
    """Keep ``record`` as the marks this run left in ``collection``."""
    if store.settings.get(_RECORD_SETTING + collection) != record:
        store.settings.save(_RECORD_SETTING + collection, record)


def add_anki_actions(
    store: Store, actions: Sequence[CardActionEvent], store_actions: Iterable[CardActionEvent]
) -> tuple[int, tuple[str, ...]]:
    """Log the card actions brought back from Anki that the store lacks (a set union by
    identity); how many were new, and the store's warnings about any it held back."""
    known = {e.identity for e in store_actions}
    merged = store.log.add_events([a for a in actions if a.identity not in known])
    return merged.added, merged.warnings


def scheduler_of(store: Store | None) -> Scheduler[Any]:
    """The scheduler the store derives its cards with (the default one without a store)."""
    return store.scheduler if store is not None else scheduler_named()


def from_anki(found: AnkiReviews) -> list[Event]:
    """Anki's reviews of zerodrill's cards, less the rows zerodrill wrote (:mod:`.revlog`),
    and the changes made by hand there (Set Due Date, Forget), oldest first."""
    # The reading left the rows zerodrill wrote out already, and each kind is oldest first.
    return list(merge(found.reviews, found.by_hand, key=_SEQ))


_SEQ = attrgetter("seq")


def held_back(reviews: Sequence[Event], until: datetime) -> tuple[list[Event], tuple[str, ...]]:
    """``reviews`` dated by ``until``, and a line about those after it, held back."""
    # Most syncs hold none back: the latest looked for in C, not each one in Python.
    if max(map(_AT, reviews), default=until) <= until:
        return list(reviews), ()
    kept = [r for r in reviews if r.at <= until]
    ahead = len(reviews) - len(kept)
    return kept, (
        f"{plural(ahead, 'answer')} in Anki dated more than a day ahead held back until then: "
        "is that device's clock wrong?",
    )


def add_anki_reviews(
    store: Store,
    reviews: Sequence[Event],
    known: Collection[tuple[str, int]],
    histories: Mapping[str, CardHistory],
) -> tuple[str, ...]:
    """Log the reviews given in Anki that the store lacks (a set union by identity: a review
    is known by its revlog id; those ``known`` (:func:`anki_known`) are not even offered);
    the store's warnings about any it held back. ``histories``: the cards :func:`derive`
    replayed with them, which the store takes as they are if they still are its cards'
    events."""
    replayed = {k: h.replayed for k, h in histories.items() if h.replayed is not None}
    # Looked at in C when the store knows none of them (a sync's new answers): one event of
    # bench_anki_sync.py's 9,747 at a time in Python was a pass of its own.
    if any(map(known.__contains__, map(_IDENTITY, reviews))):
        reviews = [r for r in reviews if _IDENTITY(r) not in known]
    return store.log.add_events(reviews, replayed=replayed).warnings


def adding(
    store: Store,
    reviews: Sequence[Event],
    known: Collection[tuple[str, int]],
    histories: Mapping[str, CardHistory],
) -> Beside[tuple[str, ...]]:
    """:func:`add_anki_reviews` started beside the run (while it writes into Anki), through a
    connection of its own to the store's file: start it once the run no longer reads the
    store for what the answers change. It gives the store's warnings."""
    # The learner's scheduler as this run's store has it: the replay handed over is its.
    path, scheduler = store.path, store.scheduler

    def add() -> tuple[str, ...]:
        with Store.open(path, create=False, scheduler=scheduler) as own:
            return add_anki_reviews(own, reviews, known, histories)

    return Beside(add, "store")


def new_to_zerodrill(known: Collection[tuple[str, int]], anki: Sequence[Event]) -> tuple[int, int]:
    """How many of Anki's reviews, and of its changes made by hand, the store does not hold
    yet (``known``: those it does, :func:`anki_known`)."""
    # Counted in C, each of a sync's answers (bench_anki_sync.py's 9,747) once; the changes
    # made by hand, few, counted apart.
    new = sum(1 for _ in filterfalse(known.__contains__, map(_IDENTITY, anki)))
    by_hand = 0
    if CardActionEvent in set(map(type, anki)):
        actions = (r for r in anki if isinstance(r, CardActionEvent))
        by_hand = sum(1 for r in actions if _IDENTITY(r) not in known)
    return new - by_hand, by_hand


def _by_key(
    store_events: Iterable[Event], anki: Sequence[Event], keys: Iterable[str]
) -> dict[str, list[Event]]:
    """The events of each of ``keys``, the store's and Anki's: a set union by identity.

    Told apart by number, and by origin only where two origins share a number on a card:
    an (origin, seq) pair for each would be a new tuple, which the garbage collector counts,
    and bench_anki_sync.py's 20,000 of them set off a collection of all the process holds in
    the replay."""
    wanted = set(keys)
    by_key: dict[str, dict[int, Event]] = {}
    # The events whose number on their card is another origin's too, by identity.
    shared: dict[str, dict[tuple[str, int], Event]] = {}
    for event in chain(store_events, anki):
        key = event.key
        if key in wanted:
            entries = by_key.get(key)
            if entries is None:
                entries = by_key[key] = {}
            held = entries.setdefault(event.seq, event)
            if held is not event and held.origin != event.origin:
                shared.setdefault(key, {}).setdefault(_IDENTITY(event), event)
    out = {key: list(entries.values()) for key, entries in by_key.items()}
    for key, more in shared.items():
        out[key] += more.values()
    return out


#: An event's identity, read in C: a replay reads it several times for each of 20,000 events.
_IDENTITY = attrgetter("origin", "seq")
_AT = attrgetter("at")


def _in_effect(entries: Sequence[Event]) -> list[Event]:
    """A card's grades and changes made by hand in Anki not withdrawn by an undo, in the
    log's one replay order."""
    kept = [
        e
        for e in entries
        if (e.action in SCHEDULE_ACTIONS if isinstance(e, CardActionEvent) else e.grade is not None)
    ]
    # An undo is never kept: with none left out, there is none, and nothing is withdrawn
    # (most cards: bench_anki_sync.py's 20,000 events are not looked at again).
    if len(kept) != len(entries):
        withdrawn = {e.undoes for e in entries if e.undoes is not None}
        if withdrawn:
            kept = [e for e in kept if _IDENTITY(e) not in withdrawn]
    kept.sort(key=time_order)
    return kept


def touched(
    store: Store | None,
    anki: Sequence[Event],
    known: Collection[tuple[str, int]],
    cids: Mapping[str, int],
    written: Mapping[int, Sequence[tuple[int, int]]],
) -> set[str]:
    """The cards (among ``cids``'s keys) something moved for: an answer given in Anki that
    the store lacks (``known``: those it holds), or Anki's marked rows (``written``, by card
    id) not exactly the card's zerodrill answers in effect (one missing, or one undone since).
    The others are as the last sync left them on both sides, and need no replay.

    Read from the store as (time, grade) alone, not as events: a sync with little new reads
    little more (bench_anki_sync.py's nothing-new sync: the goal of 3x Anki's own syncs)."""
    # The identity read in C (_IDENTITY), not by the property: for each of Anki's answers.
    out = {r.key for r in anki if r.key in cids and _IDENTITY(r) not in known}
    # The cards with a new answer from Anki are moved whatever the store holds: the store is
    # asked about the others only (a two-way sync's every card, bench_anki_sync.py's).
    rest = [key for key in cids if key not in out]
    ours = store.log.graded(not_of=ANKI_ORIGIN, keys=rest) if store is not None else {}
    for key, cid in cids.items():
        rows = written.get(cid, ())
        if key not in out and (key in ours or rows):
            if not revlog.all_written(ours.get(key, ()), rows):
                out.add(key)
    return out


def cached(store: Store | None, keys: Collection[str]) -> dict[str, tuple[Phase, AnkiCard]]:
    """The schedule the store's derived cache holds for each of ``keys`` it knows (the new
    ones absent): its phase, and how it reads in Anki. No replay: cheap for every card."""
    if store is None or not keys:
        return {}
    scheduler = store.scheduler
    return {
        key: (state.phase, scheduler.anki(state))
        for key, state in store.schedule.states(keys).items()
    }


def derive(
    store_events: Iterable[Event],
    anki: Sequence[Event],
    keys: Iterable[str],
    scheduler: Scheduler[Any],
) -> dict[str, CardHistory]:
    """Each of ``keys`` with an event, as the store's events and Anki's reviews (which may
    not be in the store yet) make it together: a set union by identity, then a replay in the
    log's one order, undone grades left out, as the store derives its cards."""
    return dict(replaying(store_events, anki, keys, scheduler))


def replaying(
    store_events: Iterable[Event],
    anki: Sequence[Event],
    keys: Iterable[str],
    scheduler: Scheduler[Any],
) -> Iterator[tuple[str, CardHistory]]:
    """:func:`derive`'s cards one at a time, in the order of their keys, each as soon as it is
    replayed: what is made of one (its rows in Anki's revlog) is written while the next ones
    are replayed (bench_anki_sync.py's two-way sync: the goal of 3x Anki's own syncs)."""
    fingerprint = schedule(scheduler).fingerprint
    # How a state reads in Anki is the scheduler's to say (its module declares it).
    anki_of = scheduler.anki
    new_state = scheduler.new_state
    # The scheduler's step looked up once, not for each of bench_anki_sync.py's 20,000 grades.
    step = answerer(scheduler)
    first, recall = Effect.FIRST, Effect.RECALL
    learn, review, relearn = revlog.LEARN, revlog.REVIEW, revlog.RELEARN
    by_key = _by_key(store_events, anki, keys)
    for key in sorted(by_key):
        entries = by_key[key]
        state: CardState = new_state()
        answers: list[Answer] = []
        effects: list[Effect] = []
        set_in_anki = False
        decided: AnkiDecision | None = None
        decided_id = 0
        in_effect = _in_effect(entries)
        # The interval before each grade: the one the step before left (read once a step).
        ivl = state.interval
        first_day: date | None = None  # of the card's first grade (since it was last new)
        for event in in_effect:
            at = event.at
            when = When(at, event.day)
            decided, decided_id = event.decided, event.seq
            if isinstance(event, CardActionEvent):
                set_in_anki = True
                state = by_hand(scheduler, state, when, decided)
                ivl = state.interval
                continue
            set_in_anki = False
            grade = event.grade
            assert grade is not None
            last_ivl = ivl
            effect = effect_of(state, when)
            effects.append(effect)
            if effect is first:
                kind, first_day = learn, event.day
            elif effect is recall:
                kind = review
            else:
                kind = learn if event.day == first_day else relearn
            state = step(state, grade, when, event.buttons, decided)
            ivl = state.interval
            given_in_anki = event.origin == ANKI_ORIGIN
            # Positional, in the fields' order: one for each of 20,000 grades.
            answers.append(
                Answer(
                    key,
                    grade,
                    at,
                    event.answer_ms,
                    given_in_anki,
                    kind,
                    last_ivl,
                    ivl,
                    0 if given_in_anki else anki_of(state).ease_permille,
                    decided is not None,
                )
            )
        card = anki_of(state)
        identities = tuple(map(_IDENTITY, in_effect))
        replayed = Replayed(fingerprint, identities, state, tuple(effects))
        again_at = state.step_due or (answers[-1].at if answers else None)
        yield (
            key,
            CardHistory(
                key,
                card.due,
                card.interval,
                card.ease_permille,
                card.lapses,
                tuple(answers),
                card,
                set_in_anki,
                replayed,
                state.again_on,
                again_at if state.again_on is not None else None,
                state.phase is Phase.RELEARNING,
                decided=decided,
                decided_id=decided_id if decided is not None else 0,
            ),
        )


class DrillDay(Struct, frozen=True):
    """What the drill builds today's queue from, once the store holds this run's events."""

    #: The keys with a schedule, and of those the keys due by today, most overdue first
    #: (ties by key, as the drill orders them).
    scheduled: frozenset[str]
    due: tuple[str, ...]
    #: The keys graded today, and those of them graded for the first time.
    graded: frozenset[str]
    introduced: frozenset[str]
    #: The keys an interview brought forward today.
    brought: tuple[str, ...]
    #: Which siblings wait for another day (an interview date near relaxes it).
    apart: Apart


def drill_day(
    store: Store | None,
    anki: Sequence[Event],
    histories: Mapping[str, CardHistory],
    keys: Iterable[str],
    today: date,
) -> DrillDay:
    """What the drill's queue on ``today`` over ``keys`` is built from, the store's events
    and Anki's reviews (``anki``) together: ``histories`` are the cards this run derived again
    (:func:`derive`); every other card is as the store derives it."""
    dues = dict(store.schedule.due_dates()) if store is not None else {}
    for key, history in histories.items():
        if history.due is None:
            dues.pop(key, None)
        else:
            dues[key] = history.due
    due = tuple(
        key for key, day in sorted(dues.items(), key=lambda kv: (kv[1], kv[0])) if day <= today
    )
    logged = store.log.reviews_on(today) if store is not None else []
    graded = {r.key for r in logged}
    introduced = {r.key for r in logged if r.introduced}
    for event in anki:
        if event.day == today and isinstance(event, ReviewEvent) and event.grade is not None:
            graded.add(event.key)
            answers = histories[event.key].answers if event.key in histories else ()
            if answers and answers[0].from_anki and answers[0].at == event.at:
                introduced.add(event.key)
    brought: tuple[str, ...] = ()
    apart = Apart.ALL
    if store is not None:
        brought = tuple(store.attempts.brought_forward(today).pending)
        interview = store.profile.interview
        if interview is not None and today < interview:
            from zerodrill.srs.interview_plan import plan_for, queue_apart

            plan = plan_for(keys, store, today, interview, new_limit=DEFAULT_NEW_LIMIT)
            apart = queue_apart(plan)
    return DrillDay(frozenset(dues), due, frozenset(graded), frozenset(introduced), brought, apart)


#: The store setting holding which side alone was on FSRS when a run last said so.
_ONE_SIDED_SETTING = "anki-sync-fsrs-one-side "
_FSRS = "fsrs"


class Model(Struct, frozen=True):
    """What a run schedules with, and what it keeps once done."""

    scheduler: Scheduler[Any]
    #: The options of the preset's FSRS model, to keep as the learner's (none: keep none).
    adopted: tuple[tuple[Option, Any], ...] = ()
    #: Which side alone is on FSRS ("zerodrill", "anki"; "" for neither), and the line that
    #: says so this run (None: said before, or nothing to say).
    one_side: str = ""
    notice: str | None = None
    #: FSRS parameters of the learner's newer than the preset's, to write into it.
    written: tuple[float, ...] | None = None
    #: When the preset's model was made (the time its parameters are kept with).
    adopted_at: datetime | None = None


def one_model(store: Store | None, preset: Preset | None, collection: str) -> Model:
    """The scheduler a run derives with: the learner's, made with the FSRS model of Anki's
    ``preset`` when both sides are on FSRS; and where only one side is, the line that says
    so, unless a run said it already for ``collection`` (an id naming it)."""
    scheduler = scheduler_of(store)
    if store is None or preset is None:
        return Model(scheduler)
    learner_fsrs = scheduler.name == _FSRS
    one_side = "" if learner_fsrs == preset.fsrs else "zerodrill" if learner_fsrs else "anki"
    notice = None
    if one_side and store.settings.get(_ONE_SIDED_SETTING + collection) != one_side:
        notice = (
            "FSRS schedules in zerodrill, SM-2 in Anki (FSRS is off in its deck options): "
            "the two sides schedule differently"
            if one_side == "zerodrill"
            else "FSRS schedules in Anki (its deck options), SM-2 in zerodrill: the two sides "
            "schedule differently (zerodrill drill --scheduler fsrs for one model)"
        )
    if one_side or not learner_fsrs:
        return Model(scheduler, (), one_side, notice)
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from zerodrill.srs.schedulers.fsrs import PARAMETERS
    from zerodrill.srs.schedulers.retention import DEFAULT_RETENTION, DESIRED_RETENTION
    from zerodrill.srs.settings import chosen_scheduler, saved_option

    parameters = preset.parameters or tuple(DEFAULT_PARAMETERS)
    mine = saved_option(store, PARAMETERS)
    mine_at = store.settings.saved_at(PARAMETERS.setting)
    # The newest wins, as in the log: parameters fitted (zerodrill anki optimize, on any
    # machine) after the preset last changed go to the preset; else the preset's are taken.
    newer = mine_at is not None and (preset.changed_at is None or mine_at > preset.changed_at)
    differ = mine is not None and tuple(mine) != parameters
    written = tuple(mine) if mine is not None and newer and differ else None
    if written is not None and not preset.can_hold(written):
        written = None  # an Anki that keeps FSRS-5's alone: the preset's are taken
    adopted = (
        (PARAMETERS, written or parameters),
        (DESIRED_RETENTION, preset.desired_retention or DEFAULT_RETENTION),
    )
    options = {option.name: value for option, value in adopted}
    scheduler = chosen_scheduler(store, _FSRS, options=options)
    return Model(scheduler, adopted, written=written, adopted_at=preset.changed_at)


def keep_model(store: Store, model: Model, collection: str) -> None:
    """Keep what a run scheduled with as the learner's (so the drill schedules as Anki
    does), and which side alone was on FSRS when it said so."""
    if model.adopted:
        from zerodrill.srs.settings import save_option

        for option, value in model.adopted:
            if store.settings.get(option.setting) != option.write(value):
                save_option(store, option, value, at=model.adopted_at)
        store.use(model.scheduler)
    key = _ONE_SIDED_SETTING + collection
    if (store.settings.get(key) or "") != model.one_side:
        store.settings.save(key, model.one_side)
