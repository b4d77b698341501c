"""``zerodrill anki sync``: the steps in order, and what moved each way.

1. With a server: an ordinary sync of zerodrill's copy of the collection, and of its media,
   while the decks' package is worked out and what the event stream sends is read from the store,
   with the events of the cards it sends for (the sync in a thread: Anki's backend leaves
   Python's lock as it talks to the server).
2. On a work copy (:mod:`.workcopy`): first the event stream (:mod:`.media_transport`): this
   machine's new events written as a file in the collection's media, and the other machines'
   taken into the store as theirs (their grades, undos and card actions, by identity); then the
   notes brought up to date (:mod:`.note_updates`); the model to schedule with (under FSRS on
   both sides, the preset's: :mod:`.preset`); Anki's reviews (read before Anki opened the copy;
   a dry run's, after), leaving out the rows zerodrill wrote (:mod:`.revlog`); for each card
   something moved for, or whose row no longer shows the store's schedule (:mod:`.stale_rows`),
   zerodrill's answers Anki lacks written to its revlog (in a thread, as the cards are
   replayed: :class:`.backend.Inserting`) and its schedule set (:mod:`.schedule`);
   the marks changed in Anki read back as card actions and every card given the marks
   zerodrill's actions make (:mod:`.marks`); last, the siblings the drill holds today held in
   Anki too (:mod:`.siblings`). From the replay on, Anki's reviews and changes made by hand are
   taken into the review store as events, in a thread beside the writing into Anki and step 3
   (:func:`.store_bridge.adding`). The copy then replaces the collection.
3. With a server: an ordinary sync up, and the media. While the collection syncs (the same
   way), the marks read from Anki are added to the review store as events, and what was read
   from Anki is sent in the collection's media; the record of the marks the run left is kept,
   and the model taken from the preset becomes the learner's.

The store is written once the copy has replaced the collection, but for the other machines'
events, taken first (they are theirs, as a folder sync takes them; this machine's file of
events in a work copy thrown away is missed by the next run, which writes its events again),
and Anki's reviews, taken from the replay on: what was read from Anki the collection holds
already (the first sync brought it), and a run that stops before the store takes it leaves it
for the next; the record of the marks (:mod:`.marks`) never holds marks the
collection or the store lacks (a failure between the two leaves the older record, and the next
run finds both sides agreeing). What was read from Anki is sent in this run, not the next,
because it depends on when it was read (a mark's time; an answer's memory state, in the card
row while the answer is its latest): a machine syncing before this one's next run would read
its own, or take this one's older actions without it and write their marks back over the
phone's (two machines flipping a flag, or rescheduling a card, at every sync). A run killed
anywhere leaves the collection whole (the work copy is thrown away) and the server as Anki's
protocol leaves it; a collection that changed meanwhile (an answer in Anki) is left as it is,
and the run refuses. A dry run reads copies only, in a temporary folder, and writes nothing;
it asks the server what it holds that the copy lacks (the other machines' files of events
included), read-only (:mod:`.peek`), and counts on the copy with that merged in.
"""

from __future__ import annotations

import gc
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from msgspec import Struct, field, structs

from zerodrill.anki_sync import (
    marks,
    media_transport,
    peek,
    preset,
    revlog,
    schedule,
    server,
    siblings,
    stale_rows,
    workcopy,
)
from zerodrill.anki_sync import note_updates as notes
from zerodrill.anki_sync import store_bridge as events
from zerodrill.anki_sync.backend import (
    AnkiSyncError,
    Inserting,
    db,
    open_collection,
    require_anki,
    update_rows,
    writing_into_copy,
)
from zerodrill.anki_sync.beside import Beside
from zerodrill.anki_sync.login import HostKey
from zerodrill.deck.item_index import ItemIndex
from zerodrill.deck.model import Deck
from zerodrill.export import apkg
from zerodrill.export.manifest import Manifest
from zerodrill.srs.anki_import import AnkiReviews, read_copy, read_reviews
from zerodrill.srs.card_actions import CardActionEvent, replay
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.store import Store
from zerodrill.srs.store.eventlog import HOLD_AHEAD
from zerodrill.srs.sync import exchange
from zerodrill.srs.sync.exchange import SyncReport
from zerodrill.words import plural

if TYPE_CHECKING:
    from anki.collection import Collection

PACKAGE_NAME = "zerodrill-decks.apkg"
#: The revlog rows written at once (one statement) while the next cards are replayed: few,
#: as the last batch is written once the replay is done.
_ROWS_AT_ONCE = 1000
_T = TypeVar("_T")
#: The columns of a card a run sets: its schedule, then the time and sync number of a change.
_CARD_COLUMNS = tuple("type queue due odue ivl factor reps lapses left data mod usn".split())


#: A dry run's remark when the server's collection was replaced since the last sync.
_FULL_SYNC_DUE = (
    "the server asks for a full sync (its collection was replaced): the counts are as of "
    "the last sync, and a real sync would take the server's collection whole"
)


class Moved(Struct, frozen=True):
    notes_added: int = 0
    notes_updated: int = 0
    retired_suspended: int = 0
    #: zerodrill's notes the collection holds once the run is done (what a full upload sends).
    notes_held: int = 0
    #: Answers given in Anki, new to zerodrill's store.
    to_zerodrill: int = 0
    #: Answers given in zerodrill, new to Anki's review log.
    to_anki: int = 0
    #: zerodrill's cards given a new due day, interval or ease in Anki.
    rescheduled: int = 0
    #: Cards given zerodrill's marks (suspended, buried, flag, marked) in Anki.
    marks_to_anki: int = 0
    #: Marks changed in Anki, new to zerodrill's store as card actions.
    marks_to_zerodrill: int = 0
    #: Due dates set and cards forgotten in Anki, new to zerodrill's store.
    by_hand_to_zerodrill: int = 0
    #: Cards buried or put back in Anki as siblings, so that it holds what the drill holds.
    siblings_held: int = 0
    #: zerodrill's events (grades, undos, card actions of every machine) added to the
    #: collection's media, and new to this machine from it (:mod:`.media_transport`).
    events_sent: int = 0
    events_received: int = 0
    full_sync: server.FullSync = server.FullSync.NONE
    #: A killed run's work copy was found and thrown away.
    cleaned_up: bool = False
    #: False for a dry run before the first sync with a server: nothing to compare yet.
    synced_before: bool = True
    remarks: tuple[str, ...] = field(default=())


class Target(Struct, frozen=True):
    """The collection synced, and the server it syncs with (None: a local file only)."""

    collection: Path
    key: HostKey | None = None
    on_new_endpoint: Callable[[str], None] = lambda endpoint: None


def sync(
    target: Target,
    decks: Sequence[Deck],
    note_keys: notes.NoteKeys,
    store: Store | None,
    manifest_file: Path,
    *,
    dry_run: bool = False,
    full_upload: bool = False,
) -> Moved:
    """Sync ``decks``' cards in ``target`` with ``store`` (None: an empty store, dry runs
    only). Raises :class:`~zerodrill.anki_sync.backend.AnkiSyncError` with one line for each
    failure a user can meet, having changed nothing it would leave half done."""
    require_anki()
    # A symlinked collection is written through: the link stays, its file is replaced.
    target = structs.replace(target, collection=workcopy.real_path(target.collection))
    # A dry run writes nothing beside the collection, a lock included (it removes nothing).
    held = not dry_run and target.collection.parent.is_dir()
    with workcopy.one_run(target.collection) if held else nullcontext(), _no_cycle_collection():
        return _run(target, decks, note_keys, store, manifest_file, dry_run, full_upload)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for the run, and resumed as it was: the run makes a few
    hundred thousand objects (events, states, rows) that form no cycles the run must free,
    and each of the collector's passes walks them and everything else the process holds
    (bench_anki_sync.py's two-way sync: the goal of 3x Anki's own syncs). Reference counting
    frees them as ever."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run(
    target: Target,
    decks: Sequence[Deck],
    note_keys: notes.NoteKeys,
    store: Store | None,
    manifest_file: Path,
    dry_run: bool,
    full_upload: bool,
) -> Moved:
    collection = target.collection
    cleaned = not dry_run and workcopy.clear_leftovers(collection)
    full = server.FullSync.NONE
    first_time = target.key is not None and not collection.exists()
    if dry_run:
        if first_time:
            return Moved(synced_before=False)
    elif target.key is None:
        # Opened and closed first: a collection open in Anki is refused here, and one left
        # with a -wal by a crash is made whole before it is copied. (A dry run reads a copy
        # only, even of a collection Anki has open.)
        open_collection(collection).close()

    record_id = _record_id(target)
    making = workcopy.scratch_folder if dry_run else workcopy.work_folder
    # ``beside``: the store's work run beside the writing into Anki, waited for at its end.
    with making(collection) as folder, ExitStack() as beside:
        package = folder / PACKAGE_NAME

        def build() -> tuple[apkg.Prepared, exchange.Ahead | None, events.ReadAhead | None]:
            """The decks' package worked out (its file made only to be imported), what the
            stream sends unless the server's media bring otherwise, and the store's events of
            the cards it sends for (the cards likely replayed): none waits for the server's
            changes."""
            own = media_transport.MediaTransport(workcopy.media_folder(collection), record_id)
            if store is None:
                return notes.prepare_package(decks, manifest_file), None, None
            sending = exchange.read_ahead(store, own)
            built = notes.prepare_package(decks, manifest_file)
            # Not the cards of Anki's answers the revlog carries by itself, which the store
            # took as the run that read them replayed them: they move no card (each run
            # after answers on the phone read those cards' whole histories for nothing).
            keys = {o.key for o in sending.outside if o.identity not in sending.native}
            return built, sending, events.read_ahead(store, keys)

        ahead: exchange.Ahead | None = None
        events_ahead: events.ReadAhead | None = None
        # The copy of the collection the first sync leaves, made by the sync's thread as soon
        # as the sync is done, while this one's Python goes on (file copies leave Python's lock).
        copied: list[workcopy.Copy] = []
        if dry_run or target.key is None:
            built = notes.prepare_package(decks, manifest_file)
        else:
            full, (built, ahead, events_ahead) = _sync_with_server(
                target,
                target.key,
                build,
                first=True,
                after=lambda: copied.append(workcopy.copy_into(folder, collection)),
            )
            if first_time and full is server.FullSync.DOWNLOADED:
                full = server.FullSync.FIRST_DOWNLOAD
        # A collection taken whole from the server may lack what the last run wrote into it.
        fresh = full in (server.FullSync.DOWNLOADED, server.FullSync.FIRST_DOWNLOAD)
        record = None if fresh else events.marks_record(store, record_id)
        media = workcopy.media_folder(workcopy.copy_path(folder, collection))
        streamed = None
        found: AnkiReviews | Path
        if dry_run:
            copy = workcopy.copy_into(folder, collection)
            found = copy.path
        else:

            def copy_and_read() -> tuple[workcopy.Copy, AnkiReviews]:
                made = copied[0] if copied else workcopy.copy_into(folder, collection)
                return made, read_copy(made.path, note_keys)

            # The copy made (if the sync's thread has not), and Anki's reviews read from it
            # before Anki opens it (and holds it locked), where it is, not copied again; beside
            # them, other machines' events first, as theirs (into the copy's media): the
            # schedule is derived from them all.
            with Beside(copy_and_read, "read") as reading:
                streamed = _stream(media, store, record_id, collection, ahead)
                copy, found = reading.wait()
        # Anki's database failing as the copy is written (a full disk): one line.
        with writing_into_copy(collection):
            col = open_collection(copy.path)
            try:
                pulled = None
                if dry_run:
                    # The copy takes the server's changes first (its store and collection are
                    # copies: it counts on them, as a run would).
                    if target.key is not None:
                        pulled = peek.pull(col, target.key)
                        peek.pull_media(target.key, collection, media)
                    streamed = _stream(media, store, record_id, collection, ahead)
                known = events.anki_known(store)
                store_actions = events.log_actions(store)
                moved, (anki, taking), manifest, (from_anki, new_record), model = _apply(
                    col,
                    found,
                    decks,
                    note_keys,
                    known,
                    (built, package),
                    (record, store_actions),
                    (store, record_id, events_ahead),
                    None if dry_run else beside,
                )
            finally:
                col.close()
        if streamed is not None:
            moved = structs.replace(
                moved,
                events_sent=streamed.sent + streamed.actions_sent,
                events_received=streamed.received + streamed.actions_received,
                remarks=(*moved.remarks, *streamed.warnings),
            )
        if dry_run:
            if pulled is not None and pulled.full_sync:
                moved = structs.replace(moved, remarks=(*moved.remarks, _FULL_SYNC_DUE))
            return structs.replace(moved, full_sync=full, cleaned_up=cleaned)
        workcopy.put_back(copy, collection)
        if manifest != built.given:
            notes.keep_manifest(manifest, manifest_file)

        # Sent in this run, not the next, as what was read depends on when (the docstring):
        # only what travels at all (SM-2's answers are read alike from the revlog alone).
        transport = media_transport.MediaTransport(media, record_id)
        resend = store is not None and (
            bool(from_anki)
            # Native first: all of SM-2's answers are, and none is looked up in ``known``.
            or any(not transport.native(e) and e.identity not in known for e in anki)
        )

        def log_what_was_read() -> tuple[int, tuple[str, ...]]:
            """The store's part, once the collection holds the run's changes: Anki's answers
            taken (:func:`.store_bridge.adding`), and what else was read from Anki added
            (and sent, if it travels); how many events that sent, and the store's
            warnings."""
            if store is None:
                return 0, ()
            said = () if taking is None else taking.wait()
            events.keep_marks_record(store, record_id, new_record)
            sent = 0
            if from_anki or moved.to_zerodrill or moved.by_hand_to_zerodrill:
                if from_anki:
                    _, marks_said = events.add_anki_actions(store, from_anki, store_actions)
                    said = marks_said + said
                if resend:
                    resent = _stream(media, store, record_id, collection)
                    workcopy.move_media(copy, collection)
                    if resent is not None:
                        sent = resent.sent + resent.actions_sent
            events.keep_model(store, model, record_id)
            return sent, said

        if target.key is None:
            resent_count, warnings = log_what_was_read()
        else:
            last, (resent_count, warnings) = _sync_with_server(
                target,
                target.key,
                log_what_was_read,
                full_upload=full_upload,
                adds_media=resend,
            )
            if last is not server.FullSync.NONE:
                full = last
        if resent_count:
            moved = structs.replace(moved, events_sent=moved.events_sent + resent_count)
    remarks = moved.remarks + warnings
    return structs.replace(moved, full_sync=full, cleaned_up=cleaned, remarks=remarks)


def _stream(
    media: Path,
    store: Store | None,
    record_id: str,
    collection: Path,
    ahead: exchange.Ahead | None = None,
) -> SyncReport | None:
    """The event stream through ``media``, the media folder of the work copy of
    ``collection`` (:mod:`.media_transport`): this machine's new events (and any it holds that
    the media lack) written there as a file, which :func:`.workcopy.put_back` moves into the
    collection's media; every other machine's taken into the store, by identity, from both.
    ``ahead``: what :func:`.exchange.read_ahead` read of the store before."""
    if store is None:
        return None
    own = workcopy.media_folder(collection)
    transport = media_transport.MediaTransport(media, record_id, also=[own])
    return exchange.sync(store, transport, ahead)


def _sync_with_server(
    target: Target,
    key: HostKey,
    meanwhile: Callable[[], _T],
    *,
    first: bool = False,
    full_upload: bool = False,
    adds_media: bool = False,
    after: Callable[[], None] | None = None,
) -> tuple[server.FullSync, _T]:
    """One ordinary sync with the server, and of the media (the first brings the other
    machines' files of events (:mod:`.media_transport`), the last sends this one's), with
    ``meanwhile`` run while they sync (Anki's backend leaves Python's lock as it talks to the
    server): what full sync ran, and what ``meanwhile`` gave. If ``meanwhile``
    ``adds_media`` (a file of events), the media sync waits for it. ``after``: run in the
    sync's thread once the collection is closed after a sync that worked
    (:class:`.server.Background`)."""
    with server.Background(
        target.collection,
        key,
        first=first,
        full_upload=full_upload,
        on_new_endpoint=target.on_new_endpoint,
        media_after_block=adds_media,
        after=after,
    ) as done:
        given = meanwhile()
    return done.wait(), given


def _apply(
    col: Collection,
    found: AnkiReviews | Path,
    decks: Sequence[Deck],
    note_keys: notes.NoteKeys,
    known: set[tuple[str, int]],
    built: tuple[apkg.Prepared, Path],
    actions: tuple[str | None, Sequence[CardActionEvent]],
    where: tuple[Store | None, str, events.ReadAhead | None],
    beside: ExitStack | None,
) -> tuple[
    Moved,
    tuple[list[events.Event], Beside[tuple[str, ...]] | None],
    Manifest,
    tuple[list[CardActionEvent], str],
    events.Model,
]:
    """Step 2 on the open work copy: what moved, Anki's reviews of zerodrill's cards and
    (given ``beside``, where it is waited for) the store taking them once the cards are
    replayed with them, the manifest to keep once the copy is the collection, and
    (given the record of the last run's marks and the store's card actions) the card actions
    read back from Anki and the record of the marks this run leaves. ``found``: Anki's reviews,
    read from the copy before Anki opened it, or (a dry run's) the copy to read them from;
    ``where``: the store, the collection's record id, and the store's events read ahead."""
    prepared, package = built
    added, updated, manifest = notes.bring_up_to_date(col, prepared, package, note_keys)
    cards = notes.our_cards(col, note_keys)
    suspended = notes.suspend_retired(col, cards, notes.retired_keys(decks))
    if suspended:
        cards = notes.our_cards(col, note_keys)
    store, record_id, read_ahead = where
    model = events.one_model(store, preset.read(col, cards), record_id)
    if model.written is not None:
        preset.write(col, cards, model.written)  # the learner's newer fit: the phone's too
    scheduler = model.scheduler

    at = local_now()
    if isinstance(found, Path):  # the copy, to read now
        found = read_reviews(found, note_keys)
    # An answer dated more than a day ahead (a device whose clock runs ahead) waits, as the
    # store holds such events: until then it neither schedules the card nor counts.
    every_anki = events.from_anki(found)
    until = at + HOLD_AHEAD
    anki, ahead = events.held_back(every_anki, until)
    taken = revlog.TakenIds()
    written: dict[int, list[tuple[int, int]]] = {}
    # Only ids ending in the mark: the rows zerodrill wrote are among them, and so is every
    # id one it writes could take. SQLite leaves out the rest (a long-time user's million).
    for rid, cid, ease, taken_ms in db(col).all(
        "SELECT id, cid, ease, time FROM revlog WHERE id % 1000 = ?", revlog.MARK
    ):
        taken.add(rid)
        if ease and revlog.is_marked(rid, taken_ms):  # an answer (a Forget of ours has none)
            written.setdefault(cid, []).append((rid, ease))
    cids = {key: row.cid for key, row in cards.items()}
    today = schedule.Today(study_day(at), col.sched.today)
    if scheduler.fingerprint != events.scheduler_of(store).fingerprint:
        # The preset's model is new to the learner: every card's schedule moves with it.
        changed_keys = set(cids)
    else:
        changed_keys = events.touched(store, anki, known, cids, written)
        # Every row checked against the store's cache, so that one a stale phone's sync put
        # back is written again (the phone and every terminal keep one schedule); a card with
        # an answer held back for its time keeps the row Anki gave it.
        waiting = {e.key for e in every_anki if e.at > until} if ahead else set()
        mine = {key: row for key, row in cards.items() if key not in changed_keys}
        changed_keys |= stale_rows.stale(mine, events.cached(store, mine), today, waiting)
    # Only the cards something moved for are read whole and replayed; zerodrill's answers
    # Anki lacks are written to its revlog beside, as the cards are replayed. ``last``: the
    # revlog's last id before any of them (a Forget's rows, Anki's own, come after it).
    store_events = events.log_events(store, changed_keys, read_ahead)
    last = db(col).scalar("SELECT coalesce(max(id), 0) FROM revlog")
    histories: dict[str, events.CardHistory] = {}
    to_anki = 0
    # Anki's today began a day before its next cutoff (an hour off on a day the clocks move).
    since = col.sched.day_cutoff - 86_400
    since_ms = since * 1000
    introduced: list[int] = []
    reviewed: list[int] = []
    with Inserting(col, revlog.INSERT) as inserting:
        rows: list[revlog.Packed] = []
        for key, history in events.replaying(store_events, anki, changed_keys, scheduler):
            histories[key] = history
            cid = cards[key].cid
            card_rows = revlog.rows_to_write(
                cid, history.not_from_anki(), written.get(cid, ()), taken
            )
            if card_rows and card_rows[-1][0] >= since_ms:
                # Written today: counted in the deck's counts of the day, as Anki counts its
                # own answers. The card's first grade is zerodrill's and new to Anki if Anki
                # held none of zerodrill's rows of it (they are written all at once, in order).
                first = history.answers[0]
                if cid not in written and not first.from_anki and first.at.timestamp() >= since:
                    introduced.append(cid)
                reviewed += [cid] * revlog.reviews_since(card_rows, since_ms)
            rows += card_rows
            if len(rows) >= _ROWS_AT_ONCE:
                inserting.put(rows)
                to_anki, rows = to_anki + len(rows), []
        inserting.put(rows)
        to_anki += len(rows)
        # What the drill's queue on the study day is built from, read before the store takes
        # Anki's answers: given ``beside``, it takes them from here on, beside the writing
        # into Anki (what it takes, the collection holds already: the first sync brought it).
        index = ItemIndex(decks)
        drill = events.drill_day(store, anki, histories, index.keys(), today.zerodrill)
        to_zerodrill, by_hand = events.new_to_zerodrill(known, anki)
        taking = None
        if beside is not None and store is not None and (to_zerodrill or by_hand):
            taking = beside.enter_context(events.adding(store, anki, known, histories))
        inserting.wait()

    schedule.count_today(col, introduced, reviewed)
    forget = schedule.to_forget(cards, histories)
    if forget:
        from anki.cards import CardId

        # Anki's own "Forget": its revlog rows (manual, type 4) marked as zerodrill's, so that
        # no machine reads them back as a Forget made in Anki.
        col.sched.schedule_cards_as_new(
            [CardId(cid) for cid in forget], restore_position=True, reset_counts=True
        )
        own = db(col).list(
            f"SELECT id FROM revlog WHERE id > ? AND cid IN ({','.join(map(str, forget))})", last
        )
        for new, old in revlog.marked_ids(own, taken):
            db(col).execute(
                "UPDATE revlog SET id = ?, time = ? WHERE id = ?", new, revlog.MARK, old
            )
        cards = notes.our_cards(col, note_keys)
    changed = schedule.changes(cards, histories, today)
    stamp = int(at.timestamp())
    update_rows(
        col,
        "cards",
        _CARD_COLUMNS,
        [
            (c.cid, c.type, c.queue, c.due, c.odue, c.ivl, c.factor, c.reps, c.lapses, c.left)
            + (c.data, stamp, -1)
            for c in changed
        ],
    )
    record, store_actions = actions
    from_anki, marked, new_record, held = _marks(
        col, note_keys, decks, (today.zerodrill, at), record, store_actions
    )
    # Last, on the cards as the marks leave them: a suspended card holds no sibling back.
    held_back = siblings.hold(col, notes.our_cards(col, note_keys), index, drill)
    if to_anki or changed or marked or held_back:
        # Anki syncs only a collection whose time is not the server's: later than it was,
        # never set back to the run's whole second, which the server's may be (a full sync's).
        db(col).execute("UPDATE col SET mod = max(mod + 1, ?)", stamp * 1000)
    moved = Moved(
        notes_added=added,
        notes_updated=updated,
        retired_suspended=suspended,
        notes_held=sum(not cards.keys().isdisjoint(ords.values()) for ords in note_keys.values()),
        to_zerodrill=to_zerodrill,
        by_hand_to_zerodrill=by_hand,
        to_anki=to_anki,
        rescheduled=len(changed) + len(forget),
        marks_to_anki=marked,
        marks_to_zerodrill=len(from_anki),
        siblings_held=held_back,
        remarks=(*(() if model.notice is None else (model.notice,)), *ahead, *held),
    )
    return moved, (anki, taking), manifest, (from_anki, new_record), model


def _marks(
    col: Collection,
    note_keys: notes.NoteKeys,
    decks: Sequence[Deck],
    when: tuple[date, datetime],
    record_text: str | None,
    store_actions: Sequence[CardActionEvent],
) -> tuple[list[CardActionEvent], int, str, tuple[str, ...]]:
    """The cards' marks on the open work copy (:mod:`.marks`): the card actions read back
    from Anki that the store lacks, how many cards were given zerodrill's marks, the record
    of the marks the run leaves (``record_text``: the last run's), and a warning if some
    were held back. ``when``: the study day and the time of the run.

    A change in Anki dated more than a day ahead (a device whose clock is wrong) would win
    over every later change until then, as a review would: its card is left as both sides
    have it, and out of the record, until that time comes (as the store holds such events).
    """
    today, now = when
    cards = marks.read(col, note_keys)
    retired = notes.retired_keys(decks)
    record = marks.load_record(record_text, today)
    ours = marks.wanted_marks(replay(store_actions), cards, today)
    known = {e.identity for e in store_actions}
    changes = marks.from_anki(cards, record, ours, retired, int(now.timestamp()))
    found = [e for e in changes if e.identity not in known]
    ahead = {e.key for e in found if e.at > now + HOLD_AHEAD}
    from_anki = [e for e in found if e.key not in ahead]
    every = {e.identity: e for e in (*store_actions, *from_anki)}
    wanted = marks.wanted_marks(replay(every.values()), cards, today)
    settled = {key: card for key, card in cards.items() if key not in ahead}
    changed = marks.apply(col, settled, record, wanted, retired)
    kept = {key: m for key, m in wanted.items() if key not in ahead}
    kept.update((key, record[key]) for key in ahead if key in record)
    held: tuple[str, ...] = ()
    if ahead:
        held = (
            f"{plural(len(ahead), 'card')} suspended, flagged or marked in Anki at a time more "
            "than a day ahead held back until then: is that device's clock wrong?",
        )
    return from_anki, changed, marks.record_text(kept, today), held


def _record_id(target: Target) -> str:
    """What names the collection synced with, for the record of the marks a run left in it:
    the file, and for a server the account (another account's collection is another)."""
    account = target.key.hkey if target.key is not None else ""
    named = f"{target.collection.resolve()}\0{account}"
    return hashlib.sha256(named.encode("utf-8")).hexdigest()[:16]


def cache_for(folder: Path, key: HostKey, *, dry_run: bool = False) -> Path | None:
    """zerodrill's copy of the collection of the account ``key`` logs in to, in ``folder``;
    None for a dry run when there is none yet (another account's is there).

    A copy of another account's (or server's) collection is thrown away: the next sync takes
    this one's whole. Nothing is lost with it, as everything zerodrill writes into a copy is
    derived again from the review store. Only a copy zerodrill can prove it made is removed:
    the record of the account (:data:`_LOGIN`) is written before the copy is first made, so
    a collection found there without it is someone else's, and is refused, left as it is.
    """
    collection = folder / "collection.anki2"
    stamp = folder / _LOGIN
    # The host key names the account; the address may change (AnkiWeb moves accounts).
    whose = hashlib.sha256(key.hkey.encode()).hexdigest()
    if not folder.is_dir():
        return collection  # a dry run before any sync: nothing to keep apart
    media = workcopy.media_folder(collection)
    files = [collection, Path(f"{collection}-wal"), folder / "collection.media.db2", media]
    try:
        known = stamp.read_text(encoding="ascii").strip() if stamp.is_file() else None
        if known is None and (found := [p.name for p in files if os.path.lexists(p)]):
            raise AnkiSyncError(
                f"{folder} holds {', '.join(found)}, which zerodrill did not make: it is left "
                "as it is; move it elsewhere (to sync with it: --collection), then run again"
            )
        if known == whose:
            return collection
        if dry_run:
            return None
        if known is not None:
            for path in files[:3]:
                path.unlink(missing_ok=True)
            shutil.rmtree(media, ignore_errors=True)
        stamp.write_text(whose + "\n", encoding="ascii")
    except (OSError, ValueError) as exc:
        raise AnkiSyncError(f"cannot prepare {folder} for the sync: {exc}") from None
    return collection


#: In zerodrill's folder of the collection: whose copy it is (a digest of the host key).
_LOGIN = "collection.login"
