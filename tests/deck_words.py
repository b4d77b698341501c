"""How long the ZeRO deck's answers and interview talk tracks are, in words: shared by the deck
tests and run by hand.

``python tests/deck_words.py [DECK.yaml]`` prints, per field, the median, 90th percentile and
maximum word count of the active cards' answers (the figures issue 23 asks for), then each
interview's talk track in words and in words a minute of its time.
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from zerodrill.deck.model import Deck, Interview

ROOT = Path(__file__).resolve().parent.parent
DECK_PATH = ROOT / "decks" / "deepspeed-zero.yaml"

#: What the learner reads as the answer, per kind (a cloze card's answer is its text).
ANSWER_FIELDS = {
    "basic": ("back",),
    "follow_up": ("answer",),
    "red_flag": ("why", "instead"),
    "cloze": ("text",),
}
_WORDY = re.compile(r"[^\W_]")  # a token with a letter or digit: table rules and pipes don't count


def words(text: str | None) -> int:
    return sum(1 for token in (text or "").split() if _WORDY.search(token))


#: How fast a person speaks an answer: the slow end of conversational speech (130-150 words a
#: minute), so a model talk track timed at it can be said by anyone in the interview's minutes.
SPOKEN_WORDS_PER_MINUTE = 130


def talk_track_words(deck: Deck, interview: Interview) -> int:
    """The words of an interview's model talk track as the rehearsal shows it: every point and
    what its cards teach (a card backing two points is read twice)."""
    return sum(
        words(point) + sum(words(answer) for answer in answers)
        for point, answers in deck.talk_track(interview)
    )


def active_cards(deck: dict[str, Any]) -> list[dict[str, Any]]:
    retired = set(deck.get("retired") or ())
    return [card for card in deck["cards"] if card["id"] not in retired]


def field_words(deck: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """For each answer field name and ``extra``: (card id, words) of every active card with it."""
    out: dict[str, list[tuple[str, int]]] = {}
    for card in active_cards(deck):
        for name in (*ANSWER_FIELDS[card["kind"]], "extra"):
            if isinstance(card.get(name), str):
                out.setdefault(name, []).append((card["id"], words(card[name])))
    return out


def percentile(values: list[int], fraction: float) -> int:
    """The nearest-rank percentile: the smallest value with ``fraction`` of values at or below."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def summary(deck: dict[str, Any]) -> list[tuple[str, int, float, int, int]]:
    """(field, count, median, 90th percentile, maximum), the answer fields pooled as 'answers'."""
    per_field = field_words(deck)
    rows = []
    pooled = [n for name in ("back", "answer", "instead") for _, n in per_field.get(name, [])]
    groups = [("answers (back, answer, instead)", pooled)]
    groups += [(name, [n for _, n in per_field[name]]) for name in sorted(per_field)]
    for name, values in groups:
        rows.append(
            (name, len(values), statistics.median(values), percentile(values, 0.9), max(values))
        )
    return rows


def main(argv: list[str]) -> None:
    path = Path(argv[0]) if argv else DECK_PATH
    deck = yaml.safe_load(path.read_text(encoding="utf-8"))
    print(f"{len(active_cards(deck))} active cards in {path}")
    print(f"{'field':34} {'n':>4} {'median':>7} {'p90':>5} {'max':>5}")
    for name, count, median, p90, most in summary(deck):
        print(f"{name:34} {count:4} {median:7g} {p90:5} {most:5}")
    from zerodrill.deck.load import load_file

    loaded, _ = load_file(path)
    for interview in loaded.interviews if loaded is not None else ():
        said = talk_track_words(loaded, interview)
        print(
            f"interview {interview.id}: {len(interview.points)} points in {interview.minutes} "
            f"minutes, a talk track of {said} words ({said / interview.minutes:.0f} a minute)"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
