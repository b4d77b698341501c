"""FSRS's parameters fitted to the learner's whole log by Anki's own optimizer, and the log loss
and RMSE (bins) of the parameters before and after, as Anki's backend computes them.

Anki's backend fits and evaluates parameters from a collection's review log (``revlog``),
without torch. So the log's grades in effect, zerodrill's and Anki's alike, are written as
revlog rows of a throwaway collection (one card for each card key, no note), and the backend
is asked, as Anki's deck options ask it: fit over every card, then evaluate each set of
parameters over the same reviews. Nothing of FSRS is computed here.

Anki's releases differ: 25.2 fits FSRS-5 (19 parameters, read as FSRS-6's 21 as the preset's
are: :func:`zerodrill.anki_sync.preset.fsrs6`) and evaluates given parameters with
``evaluate_params``; 26 fits FSRS-6 and calls that ``evaluate_params_legacy``. Too few reviews
to fit (Anki's own minimum) is :class:`TooFew`.
"""

from __future__ import annotations

import inspect
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from zerodrill.anki_sync.backend import AnkiSyncError, insert_rows, open_collection
from zerodrill.anki_sync.preset import fsrs6
from zerodrill.anki_sync.revlog import LEARN, RELEARN, REVIEW
from zerodrill.srs.events import ReviewEvent, time_order
from zerodrill.srs.schedulers import Rating, rating_of

if TYPE_CHECKING:
    from anki.collection import Collection


class TooFew(AnkiSyncError):
    """The log holds too few reviews for Anki's optimizer to fit."""


class Figures(Struct, frozen=True):
    """How well a set of parameters predicts the log's answers (lower is better)."""

    log_loss: float
    rmse: float


class Fit(Struct, frozen=True):
    """The parameters fitted, with the figures of those before and of them."""

    #: Grades in effect the fit read (the reviews Anki made items of are :attr:`items`).
    reviews: int
    #: Anki's training items (one for each review after a card's first).
    items: int
    before: tuple[float, ...]
    after: tuple[float, ...]
    before_figures: Figures
    after_figures: Figures

    @property
    def better(self) -> bool:
        """The fitted parameters predict the log better: a lower log loss, the optimizer's
        own measure (and Anki's, when it keeps a fit)."""
        return self.after_figures.log_loss < self.before_figures.log_loss


def fit(events: Iterable[ReviewEvent], current: Sequence[float]) -> Fit:
    """Fit FSRS's parameters to ``events`` (a whole log: grades, undos), and evaluate them and
    ``current`` (FSRS-6's 21) over the same grades."""
    histories = grades_in_effect(events)
    reviews = sum(map(len, histories.values()))
    with tempfile.TemporaryDirectory(prefix="zerodrill-fsrs-fit-") as tmp:
        col = open_collection(Path(tmp) / "fit.anki2")
        try:
            _write_log(col, histories)
            backend: Any = col._backend
            kwargs: dict[str, Any] = {
                "search": "",
                "current_params": [],
                "ignore_revlogs_before_ms": 0,
                "num_of_relearning_steps": 1,
            }
            if "health_check" in inspect.signature(backend.compute_fsrs_params).parameters:
                kwargs["health_check"] = False  # 26: its check of the data, not asked for
            # With no current parameters, too few reviews gives none back (Anki keeps the
            # current ones then).
            found = backend.compute_fsrs_params(**kwargs)
            if not found.params:
                raise TooFew(
                    f"too few reviews to fit FSRS's parameters ({reviews} in the log, "
                    f"{found.fsrs_items} that Anki's optimizer can learn from): nothing changed"
                )
            native = len(found.params)
            after = fsrs6(found.params)
            before_figures = _evaluate(backend, _native(current, native))
            after_figures = _evaluate(backend, list(found.params))
        finally:
            col.close()
    return Fit(reviews, found.fsrs_items, tuple(current), after, before_figures, after_figures)


def grades_in_effect(events: Iterable[ReviewEvent]) -> dict[str, list[tuple[datetime, Rating]]]:
    """Each card's grades no undo withdrew, as Anki's ratings, in the replay's time order."""
    events = list(events)
    withdrawn = {e.undoes for e in events if e.undoes is not None}
    graded = sorted(
        (e for e in events if e.grade is not None and e.identity not in withdrawn),
        key=time_order,
    )
    histories: dict[str, list[tuple[datetime, Rating]]] = {}
    for e in graded:
        assert e.grade is not None
        histories.setdefault(e.key, []).append((e.at, rating_of(e.grade)))
    return histories


def _write_log(col: Collection, histories: dict[str, list[tuple[datetime, Rating]]]) -> None:
    """One card row per key (the optimizer reads cards and their revlog, never notes), and a
    revlog row per grade: its id the answer's time in ms, moved on a ms where two meet."""
    cards, rows = [], []
    taken: set[int] = set()
    for cid, key in enumerate(sorted(histories), start=1):
        cards.append((cid, cid))
        first_day = None
        last: tuple[datetime, Rating] | None = None
        for at, rating in histories[key]:
            day = at.date()
            first_day = first_day or day
            # Anki's revlog types: a new card's first day is learning, a failed card's
            # same-day answers relearning.
            if day == first_day:
                kind = LEARN
            elif last is not None and last[0].date() == day and last[1] is Rating.AGAIN:
                kind = RELEARN
            else:
                kind = REVIEW
            rid = int(at.timestamp() * 1000)
            while rid in taken:
                rid += 1
            taken.add(rid)
            rows.append((rid, cid, -1, int(rating), 0, 0, 0, 0, kind))
            last = (at, rating)
    insert_rows(
        col,
        "INSERT INTO cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, "
        "lapses, left, odue, odid, flags, data) SELECT column1, column2, 1, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 0, 0, 0, 0, '' FROM ({values})",
        cards,
    )
    insert_rows(col, "INSERT INTO revlog {values}", rows)


def _native(weights: Sequence[float], count: int) -> list[float]:
    """``weights`` (FSRS-6's 21) as a backend that fits ``count`` takes them (25.2's FSRS-5:
    the first 19)."""
    return list(weights[:count])


def _evaluate(backend: Any, params: list[float]) -> Figures:
    # 26 names 25.2's evaluate_params (given parameters) evaluate_params_legacy.
    evaluate = getattr(backend, "evaluate_params_legacy", None) or backend.evaluate_params
    found = evaluate(params=params, search="", ignore_revlogs_before_ms=0)
    return Figures(float(found.log_loss), float(found.rmse_bins))
