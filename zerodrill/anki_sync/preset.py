"""The FSRS model of the deck's preset in Anki, which a learner on FSRS schedules with too: one
model on both sides (the phone's intervals and the drill's come from the same parameters and
desired retention).

Anki keeps FSRS on or off for the whole collection, and the parameters and desired retention
in each deck's preset: FSRS-6's 21 (``fsrsParams6``), else FSRS-5's 19 (``fsrsParams5``,
which are FSRS-6's with no short-term term and FSRS-5's fixed decay), else none (Anki's
defaults, FSRS-6's). zerodrill's cards share one preset: that of the deck the first of them is
in. The collection is untrusted: values FSRS does not take read as none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from zerodrill.anki_sync.backend import db
from zerodrill.anki_sync.note_updates import CardRow
from zerodrill.srs.schedulers.fsrs import read_parameters
from zerodrill.srs.schedulers.retention import check_retention

if TYPE_CHECKING:
    from anki.collection import Collection

#: The preset Anki gives a deck unless told otherwise ("Default"), which it cannot delete.
_DEFAULT_PRESET: Any = 1
#: What FSRS-5's parameters lack of FSRS-6's: no short-term stability term, decay 0.5.
_FSRS5_TAIL = (0.0, 0.5)


class Preset(Struct, frozen=True):
    """Anki's scheduling of zerodrill's cards."""

    #: FSRS is on in the collection.
    fsrs: bool
    #: FSRS-6's weights; None for Anki's defaults.
    parameters: tuple[float, ...] | None = None
    #: None where the preset holds none FSRS takes.
    desired_retention: float | None = None
    #: When the preset was last changed (in Anki, or by a sync); None if never.
    changed_at: datetime | None = None
    #: The preset keeps FSRS-6's 21 weights (Anki 25.2 keeps FSRS-5's 19 alone).
    keeps_fsrs6: bool = True

    def can_hold(self, weights: Sequence[float]) -> bool:
        """:func:`write` can give the preset ``weights`` (FSRS-6's)."""
        return self.keeps_fsrs6 or tuple(weights[19:]) == _FSRS5_TAIL


def read(col: Collection, cards: Mapping[str, CardRow]) -> Preset | None:
    """The preset zerodrill's ``cards`` are scheduled with in Anki; None without a card."""
    if not cards:
        return None
    conf = _config(col, cards)
    fsrs = col.get_config("fsrs", False) is True
    changed_at = _changed_at(conf)
    return Preset(fsrs, _parameters(conf), _retention(conf), changed_at, "fsrsParams6" in conf)


def write(col: Collection, cards: Mapping[str, CardRow], weights: Sequence[float]) -> bool:
    """Give the preset of zerodrill's ``cards`` FSRS-6's ``weights`` (the phone then schedules
    with them); False where it cannot hold them (an Anki that keeps FSRS-5's alone, and
    weights FSRS-5 has no room for)."""
    conf = _config(col, cards)
    if not conf:
        return False
    if "fsrsParams6" in conf:
        conf["fsrsParams6"] = [float(w) for w in weights]
    elif tuple(weights[19:]) == _FSRS5_TAIL:
        conf["fsrsParams5"] = [float(w) for w in weights[:19]]
    else:
        return False
    col.decks.update_config(conf)
    return True


def _config(col: Collection, cards: Mapping[str, CardRow]) -> dict[str, Any]:
    if not cards:
        return {}
    first = cards[min(cards)]
    did = db(col).scalar(
        "SELECT CASE WHEN odid != 0 THEN odid ELSE did END FROM cards WHERE id = ?", first.cid
    )
    if did is None:
        return {}
    from anki.decks import DeckId

    deck = DeckId(did) if type(did) is int else None
    if deck is None or not col.decks.get(deck, default=False):
        # A deck the collection lacks (a damaged collection, which Anki's Check Database
        # mends with a deck of the default preset): Anki's own look-up of it is a bare assert.
        return dict(col.decks.get_config(_DEFAULT_PRESET) or {})
    return dict(col.decks.config_dict_for_deck_id(deck))


def _changed_at(conf: Mapping[str, Any]) -> datetime | None:
    mod = conf.get("mod")
    if isinstance(mod, bool) or not isinstance(mod, int) or not 0 < mod < 2**40:
        return None
    return datetime.fromtimestamp(mod, UTC)


def fsrs6(weights: Sequence[float]) -> tuple[float, ...]:
    """FSRS-6's 21 weights of FSRS-6's or FSRS-5's (19, the same with :data:`_FSRS5_TAIL`);
    ``ValueError`` for others or any FSRS does not take."""
    tail = _FSRS5_TAIL if len(weights) == 19 else ()
    return read_parameters(",".join(repr(float(w)) for w in [*weights, *tail]))


def _parameters(conf: Mapping[str, Any]) -> tuple[float, ...] | None:
    for name, version in (("fsrsParams6", 21), ("fsrsParams5", 19)):
        weights = conf.get(name)
        if isinstance(weights, list) and weights:
            try:
                if len(weights) != version:
                    raise ValueError(f"{name} holds {len(weights)} weights")
                return fsrs6(weights)
            except (TypeError, ValueError):
                return None
    return None


def _retention(conf: Mapping[str, Any]) -> float | None:
    try:
        return check_retention(conf.get("desiredRetention"))
    except ValueError:
        return None
