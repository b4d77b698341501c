"""The ZeRO deck's interviews fit their time: a point a minute (``validate`` refuses more points
than minutes) and a model talk track that can be said in the minutes given.

The talk track is what the rehearsal shows after the answer (``t``): every point, and under it
what each of its cards teaches. Timed at the slow end of speech it must fit the interview's
minutes, so the model answer is one a person could give in the time the rehearsal allows.
"""

from __future__ import annotations

import pytest
from deck_words import DECK_PATH, SPOKEN_WORDS_PER_MINUTE, talk_track_words, words

from zerodrill.deck.load import load_file
from zerodrill.deck.model import Deck, Interview


def _deck() -> Deck:
    deck, problems = load_file(DECK_PATH)
    assert deck is not None, problems
    return deck


DECK = _deck()


def test_the_deck_has_interviews() -> None:
    assert len(DECK.interviews) >= 3


@pytest.mark.parametrize("interview", DECK.interviews, ids=lambda interview: interview.id)
def test_the_talk_track_can_be_said_in_the_interview_s_minutes(interview: Interview) -> None:
    said = talk_track_words(DECK, interview)
    budget = interview.minutes * SPOKEN_WORDS_PER_MINUTE
    assert said <= budget, (
        f"{interview.id}: a talk track of {said} words takes {said / SPOKEN_WORDS_PER_MINUTE:.1f}"
        f" minutes at {SPOKEN_WORDS_PER_MINUTE} words a minute, over its {interview.minutes}"
    )


def test_the_talk_track_counts_the_points_and_what_their_cards_teach() -> None:
    interview = DECK.interviews[0]
    by_id = {card.id: card for card in DECK.cards}
    point = interview.points[0]
    card = by_id[point.cards[0]]
    track = DECK.talk_track(interview)
    assert track[0][0] == point.text
    assert track[0][1][0] == card.kind.teaches(card)
    points_alone = sum(words(p.text) for p in interview.points)
    assert talk_track_words(DECK, interview) > points_alone
