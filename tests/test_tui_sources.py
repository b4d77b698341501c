"""A card's sources on its answer side: one a line, each a short label linked to its address
(issue 14 item 12), and only web addresses ever become links."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from tui_support import Clock, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.deck.source_labels import Source, source
from zerodrill.srs.store import Store
from zerodrill.tui.app import create_app
from zerodrill.tui.widgets.card_side import CardSide

BLOB = (
    "https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
    "/deepspeed/runtime/zero/config.py#L95-L138"
)
LONG_WORD = "https://example.com/" + "x" * 120
REFS = [
    BLOB,
    "ZeRO paper, arXiv:1910.02054v3, §7.2",
    "https://github.com/deepspeedai/DeepSpeed/pull/4695",
    "https://www.deepspeed.ai/docs/config-json/",
    "javascript:alert(1)",
    LONG_WORD,
    "A book, chapter 3",
]


def test_refs_become_short_labels_linked_to_their_address() -> None:
    assert source(BLOB) == Source("DeepSpeed zero/config.py L95-L138 @edaa722", BLOB)
    assert source(REFS[1]) == Source("ZeRO paper §7.2", "https://arxiv.org/abs/1910.02054v3")
    assert source(REFS[2]) == Source("DeepSpeed PR #4695", REFS[2])
    assert source(REFS[3]) == Source("deepspeed.ai docs/config-json", REFS[3])
    tagged = "https://github.com/huggingface/transformers/blob/v4.57.1/src/a/b/c.py#L7"
    assert source(tagged).label == "transformers b/c.py L7 @v4.57.1"
    # Only http(s) links: anything else is shown as the text it is, and links nowhere.
    assert source("javascript:alert(1)") == Source("javascript:alert(1)", None)
    assert source("mailto:a@b.c").url is None
    assert source("A book, chapter 3") == Source("A book, chapter 3", None)
    assert source(LONG_WORD).label == "example.com " + "x" * 39 + "…"
    assert source("https://[::1").url == "https://[::1"  # malformed: its own text, no crash


def test_every_shipped_ref_has_a_label_that_fits_a_line_at_80_columns() -> None:
    decks = load_paths([Path(__file__).resolve().parents[1] / "decks"]).decks
    refs = {ref for deck in decks for card in deck.cards for ref in card.refs}
    assert len(refs) > 100
    for ref in refs:
        found = source(ref)
        # Whole words only, so wrapping (at 80 columns the card is 74 wide) never cuts one.
        assert max(len(word) for word in found.label.split()) < 70, ref
        assert found.url is None or found.url.startswith("https://")


DECK = f"""\
deck: sources
title: Sources
description: Every shape of ref.
cards:
  - id: many
    kind: basic
    front: Where is this written?
    back: In the sources below.
    refs: {REFS!r}
"""


@run_async
async def test_sources_show_one_a_line_as_labels_linked_where_safe(tmp_path: Path) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(DECK)
    result = load_paths([path])
    assert result.ok, result.problems
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(result.decks, store, clock=Clock())
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            side = app.screen.query_one("#answer", CardSide)
            width = side.content_size.width
            lines = shown(side).splitlines()
            at = lines.index("Sources")
            labels = [line.removeprefix("• ") for line in lines[at + 1 :]]
            assert labels == [
                "DeepSpeed zero/config.py L95-L138 @edaa722",
                "ZeRO paper §7.2",
                "DeepSpeed PR #4695",
                "deepspeed.ai docs/config-json",
                "javascript:alert(1)",
                "example.com " + "x" * 39 + "…",
                "A book, chapter 3",
            ]
            console = Console(width=width, color_system="truecolor")
            links = {
                seg.style.link: seg.text
                for seg in console.render(side.renderable(), console.options.update(width=width))
                if seg.style is not None and seg.style.link
            }
            assert links == {
                BLOB: "DeepSpeed zero/config.py L95-L138 @edaa722",
                "https://arxiv.org/abs/1910.02054v3": "ZeRO paper §7.2",
                REFS[2]: "DeepSpeed PR #4695",
                REFS[3]: "deepspeed.ai docs/config-json",
                LONG_WORD: "example.com " + "x" * 39 + "…",
            }
